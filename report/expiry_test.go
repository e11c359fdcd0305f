package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestExpiryAndExportLines(t *testing.T) {
	inc := &Incident{now: time.Date(2026, 12, 1, 3, 27, 0, 0, time.UTC)}
	// As contain wrote them before the figures were typed.
	ev := incident.Event{Step: "contain", Queue: "orders-dlq", Figures: json.RawMessage(`{
		"oldest_expires_at": "2026-12-01T05:40:00Z", "oldest_expiry_basis": "cloudwatch", "oldest_expiry_upper_bound": true}`)}
	var b strings.Builder
	inc.writeExpiry(&b, ev)
	want := "\nThe oldest message expires at **2026-12-01 05:40 UTC**, 2 h 13 min after this report (from CloudWatch's age of oldest; on a standard queue it may be sooner).\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	inc.now = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	at := time.Date(2026, 12, 1, 5, 40, 0, 0, time.UTC)
	if err := ev.SetFigures(sqsapi.ExpiryFigures{OldestExpiresAt: &at, OldestExpiryBasis: sqsapi.BasisSentTimestamp}); err != nil {
		t.Fatal(err)
	}
	inc.writeExpiry(&b, ev)
	if want := "\nThe oldest message expired at **2026-12-01 05:40 UTC**, 20 min before this report (from the sampled messages' SentTimestamp): messages older than the retention are gone.\n"; b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	// Old events may hold whole numbers written from a float64.
	(&Incident{}).writeExport(&b, incident.Event{Queue: "orders-dlq", Figures: json.RawMessage(`{"location": "s3://a/b.jsonl.gz", "exported": 500, "deleted": 500.0}`)})
	if want := "\n500 messages archived to `s3://a/b.jsonl.gz`; 500 deleted from orders-dlq once the file was durable.\n"; b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}
