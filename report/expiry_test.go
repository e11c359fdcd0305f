package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestExpiryAndExportLines(t *testing.T) {
	t.Parallel()
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

// An export in parts lists them, bounded: the first maxReportParts, then a
// count of the rest and where they all are.
func TestReportListsExportParts(t *testing.T) {
	t.Parallel()
	f := archive.Figures{Location: "s3://a/b.jsonl", Exported: 1200, Deleted: 1200, PartCount: 12}
	for i := range 12 {
		f.Parts = append(f.Parts, archive.Part{Location: "s3://a/" + archive.PartName("b.jsonl", i+1), Messages: 100, Deleted: 100, Bytes: 5000, SHA256: "ab12"})
	}
	var ev incident.Event
	if err := ev.SetFigures(f); err != nil {
		t.Fatal(err)
	}
	ev.Queue = "orders-dlq"
	var b strings.Builder
	(&Incident{}).writeExport(&b, ev)
	got := b.String()
	for _, want := range []string{
		"1200 messages archived to `s3://a/b.jsonl` in 12 parts; 1200 deleted from orders-dlq once each part was uploaded and read back.\n",
		"| 1 `s3://a/b.jsonl` | 100 | 100 | 4.9 KiB | `ab12` |\n",
		"| 10 `s3://a/b.part-0010.jsonl` | 100 |",
		"… and 2 more (export.json lists every part).\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "part-0011") {
		t.Errorf("report lists more than %d parts:\n%s", maxReportParts, got)
	}
}
