package verify

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/envelope"
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

// A payload sent to a function, topic or bus comes back with a new
// MessageId and a new envelope: matched by payload hash when it reached
// the DLQ after the send, not when it was there before (a duplicate).
func TestMatchReturnedByPayload(t *testing.T) {
	payload := envelope.PayloadSHA256(&sqsjson.Message{Body: `{"order_id": "o-1"}`})
	r := Redriven{Target: "events", DestQueue: "events:orders", Sent: []Sent{
		{DLQMessageID: "d1", DestMessageID: "ev-1", PayloadSHA256: payload, SentAt: t0},
	}}
	event := `{"version":"0","id":"%s","detail-type":"OrderPlaced","source":"shop.orders","account":"123456789012",` +
		`"time":"2026-03-01T03:00:00Z","region":"us-east-1","resources":[],"detail":{"order_id":"o-1"}}`
	sent := func(at time.Time) map[string]string {
		return map[string]string{sqsjson.AttrSentTimestamp: strconv.FormatInt(at.UnixMilli(), 10)}
	}
	msgs := []sqsjson.Message{
		{MessageId: "back", Body: fmt.Sprintf(event, "e-2"), Attributes: sent(t0.Add(time.Minute))},
		{MessageId: "before", Body: fmt.Sprintf(event, "e-0"), Attributes: sent(t0.Add(-time.Hour))},
		{MessageId: "other", Body: `{"order_id":"o-2"}`, Attributes: sent(t0.Add(time.Minute))},
	}
	got := MatchReturned(msgs, r, t0)
	if len(got) != 1 || got[0].MessageID != "back" || got[0].DLQMessageID != "d1" || got[0].MatchedBy != "payload_sha256" {
		t.Fatalf("by payload: %+v", got)
	}
	r.Target, r.Sent[0].PayloadSHA256 = "", ""
	if got := MatchReturned(msgs, r, t0); len(got) != 0 {
		t.Fatalf("an SQS redrive matched by payload: %+v", got)
	}
}
