package verify

import (
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/sqsjson"
)

type fakeCompacted map[string]bool

func (f fakeCompacted) Returned(id string, _ int) bool { return f[id] }
func (f fakeCompacted) PayloadSentAt(string, int) (time.Time, bool) {
	return time.Time{}, false
}

// A compacted journal's sends are matched by their digests: a message in
// the DLQ whose MessageId a send got is returned; one that is not, is not.
func TestMatchReturnedReadsACompactedJournal(t *testing.T) {
	r := Redriven{Compacted: fakeCompacted{"d-1": true}, Sent: []Sent{{DLQMessageID: "m-2", DestMessageID: "d-2"}}}
	msgs := []sqsjson.Message{{MessageId: "d-1", Body: "a"}, {MessageId: "d-2", Body: "b"}, {MessageId: "x", Body: "c"}}
	got := MatchReturned(msgs, r, time.Now())
	if len(got) != 2 || got[0].MessageID != "d-1" || got[0].MatchedBy != "message_id" || got[1].DLQMessageID != "m-2" {
		t.Fatalf("returned %+v", got)
	}
}
