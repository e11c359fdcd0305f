package report

import (
	"github.com/mfdlq/mfdlq/redrive/journal"

	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

// A compacted journal (a big move) renders from its counts: the same
// section, its figures from the ledger, not from entries it no longer has.
func TestRedriveSectionOfACompactedJournal(t *testing.T) {
	t.Parallel()
	ws, err := incident.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	jw, _, err := journal.Open(ws.Path(incident.JournalFile), 1, false)
	if err != nil {
		t.Fatal(err)
	}
	const n = 32000 // over journal.CompactAt in entries
	at := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	for i := range n {
		id := fmt.Sprintf("m-%06d", i)
		jw.Write(journal.Entry{Time: at, Run: "r1", Op: journal.OpSent, DLQMessageID: id, BodySHA256: strings.Repeat("a", 64), DestQueue: "https://sqs/orders", DestMessageID: "d-" + id})
		if i != 5 {
			jw.Write(journal.Entry{Time: at.Add(time.Second), Run: "r1", Op: journal.OpDeleted, DLQMessageID: id, DestQueue: "https://sqs/orders"})
		}
	}
	if err := jw.Close(); err != nil {
		t.Fatal(err)
	}
	inc, err := LoadIncident(ws)
	if err != nil {
		t.Fatal(err)
	}
	if inc.Ledger == nil {
		t.Fatal("the journal was not read as compacted")
	}
	var b strings.Builder
	inc.writeRedrive(&b, incident.Event{Step: incident.StepRedrive})
	got := b.String()
	for _, want := range []string{"Journal (compacted", "63999 entries over 1 run", "| sent | 32000 |", "| deleted | 31999 |", "1 message sent but not yet deleted"} {
		if !strings.Contains(got, want) {
			t.Errorf("section lacks %q:\n%s", want, got)
		}
	}
}
