package report

import (
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

func TestExpiryAndExportLines(t *testing.T) {
	inc := &Incident{now: time.Date(2026, 12, 1, 3, 27, 0, 0, time.UTC)}
	ev := incident.Event{Step: "contain", Queue: "orders-dlq", Figures: map[string]any{
		"oldest_expires_at": "2026-12-01T05:40:00Z", "oldest_expiry_basis": "cloudwatch", "oldest_expiry_upper_bound": true,
	}}
	var b strings.Builder
	inc.writeExpiry(&b, ev)
	want := "- oldest message expires: **2026-12-01 05:40 UTC**, 2 h 13 min after this report (from CloudWatch's age of oldest; on a standard queue it may be sooner)\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	inc.now = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	ev.Figures["oldest_expiry_basis"], ev.Figures["oldest_expiry_upper_bound"] = "sent_timestamp", false
	inc.writeExpiry(&b, ev)
	if want := "- oldest message expires: **2026-12-01 05:40 UTC**, 20 min before this report (from the sampled messages' SentTimestamp): messages older than the retention are gone\n"; b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	(&Incident{}).writeExport(&b, incident.Event{Queue: "orders-dlq", Figures: map[string]any{"location": "s3://a/b.jsonl.gz", "exported": 500.0, "deleted": 500.0}})
	if want := "\n500 messages archived to `s3://a/b.jsonl.gz`; 500 deleted from orders-dlq once the file was durable.\n"; b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}
