package verify

import (
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/sqsjson"
)

var t0 = time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)

func TestMatchReturnedAndJudgeVerify(t *testing.T) {
	r := Redriven{Moved: 3, DestQueue: "orders", Sent: []Sent{
		{DLQMessageID: "d1", DestMessageID: "n1", BodySHA256: sqsjson.BodySHA256("a")},
		{DLQMessageID: "d2", DestMessageID: "n2", BodySHA256: sqsjson.BodySHA256("b")},
	}}
	msgs := []sqsjson.Message{{MessageId: "n2", Body: "b"}, {MessageId: "other", Body: "a"}}
	got := MatchReturned(msgs, r, t0)
	if len(got) != 1 || got[0].MessageID != "n2" || got[0].DLQMessageID != "d2" || got[0].MatchedBy != "message_id" {
		t.Fatalf("by id: %+v", got)
	}
	r.Native = true
	got = MatchReturned(msgs, r, t0)
	if len(got) != 2 || got[1].DLQMessageID != "d1" || got[1].MatchedBy != "body_sha256" {
		t.Fatalf("native, by hash: %+v", got)
	}
	j := Judge(Observation{Returned: got}, r)
	if !j.Done || j.Pass || !strings.Contains(j.Reasons[0], GoBack) {
		t.Errorf("returned: %+v", j)
	}
	two, three := 2.0, 3.0
	if j := Judge(Observation{Deleted: &two}, r); j.Done {
		t.Errorf("2 deleted of 3 moved passed: %+v", j)
	}
	if j := Judge(Observation{Deleted: &three}, r); !j.Pass {
		t.Errorf("3 deleted of 3: %+v", j)
	}
	if j := Judge(Observation{DLQVisible: 1}, Redriven{Left: 1, DestQueue: "orders"}); !j.Pass {
		t.Errorf("one left on purpose: %+v", j)
	}
	if j := Judge(Observation{DestInFlight: 1}, r); j.Done {
		t.Errorf("destination not drained passed: %+v", j)
	}
}
