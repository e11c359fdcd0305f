package vitals

import (
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// GoBack is what verify says when redriven messages came back.
const GoBack = "stop and go back to step 2: the fix was not the right one"

// Redriven is what the incident recorded of a redrive: the sent messages
// from its journal and the figures of its event.
type Redriven struct {
	Moved     int
	Left      int // messages deliberately left in the DLQ (skipped, failed)
	DestQueue string
	DestURL   string
	StartedAt time.Time
	// Native is a move by SQS's own move task: the moved messages got new
	// ids, so they are recognised by body hash.
	Native bool
	// Target is "lambda", "sns" or "events" for a redrive to a function,
	// topic or bus (DestURL is then its ARN); returns are recognised by
	// payload hash, and there is no destination queue to drain.
	Target string
	Sent   []redrive.Entry
}

// Returned is a redriven message found in the DLQ again.
type Returned struct {
	MessageID    string     `json:"message_id"`
	DLQMessageID string     `json:"dlq_message_id"`
	MatchedBy    string     `json:"matched_by"`
	BodySHA256   string     `json:"body_sha256"`
	ReceiveCount *int       `json:"receive_count"`
	FirstReceive *time.Time `json:"first_receive"`
	SeenAt       time.Time  `json:"seen_at"`
}

// MatchReturned finds the redriven messages among msgs (peeked from the
// DLQ): by destination MessageId, which SQS keeps when it moves a message to
// the DLQ, or by body hash for a native move.
func MatchReturned(msgs []sqsjson.Message, r Redriven, seenAt time.Time) []Returned {
	byID := map[string]redrive.Entry{}
	byHash := map[string]redrive.Entry{}
	st := redrive.Fold(r.Sent)
	byPayload := map[string]redrive.Entry{}
	for _, e := range r.Sent {
		if e.PayloadSHA256 != "" {
			byPayload[e.PayloadSHA256] = e
		}
		if e.DestMessageID != "" {
			byID[e.DestMessageID] = e
		}
		if e.BodySHA256 != "" {
			byHash[e.BodySHA256] = e
		}
	}
	out := []Returned{}
	for i := range msgs {
		m := &msgs[i]
		e, ok := byID[m.MessageId]
		how := "message_id"
		hash := redrive.BodySHA256(m.Body)
		if !ok && r.Native {
			e, ok = byHash[hash]
			how = "body_sha256"
		}
		if !ok && len(byPayload) > 0 && st.PayloadReturned(m) {
			// A new MessageId and a new envelope around a payload sent to
			// a function, topic or bus.
			e, ok = byPayload[redrive.PayloadSHA256(m)]
			how = "payload_sha256"
		}
		if !ok {
			continue
		}
		ret := Returned{MessageID: m.MessageId, DLQMessageID: e.DLQMessageID, MatchedBy: how, BodySHA256: hash, SeenAt: seenAt}
		if n, ok := m.ReceiveCount(); ok {
			ret.ReceiveCount = &n
		}
		if t, ok := m.FirstReceiveTime(); ok {
			ret.FirstReceive = &t
		}
		out = append(out, ret)
	}
	return out
}

// Observation is one look at the queues during verify.
type Observation struct {
	DLQVisible   int64    `json:"dlq_visible"`
	DLQInFlight  int64    `json:"dlq_in_flight"`
	DestVisible  int64    `json:"dest_visible"`
	DestInFlight int64    `json:"dest_in_flight"`
	Deleted      *float64 `json:"dest_deleted"` // NumberOfMessagesDeleted since the redrive began; nil: no data
	// FunctionErrors and FunctionThrottles are a Lambda target's Errors
	// and Throttles since the redrive began; nil: no data.
	FunctionErrors    *float64   `json:"function_errors,omitempty"`
	FunctionThrottles *float64   `json:"function_throttles,omitempty"`
	Returned          []Returned `json:"-"` // shown once, at the top of verify.json
}

// Judgement is verify's reading of one observation.
type Judgement struct {
	Done    bool
	Pass    bool
	Reasons []string
}

// JudgeVerify reads an observation: any returned message fails at once;
// the DLQ down to what was left, the destination drained and (when
// CloudWatch has the metric) at least Moved deletions on the destination
// pass; anything else is not yet done.
func JudgeVerify(o Observation, r Redriven) Judgement {
	if len(o.Returned) > 0 {
		return Judgement{Done: true, Reasons: []string{fmt.Sprintf("%d redriven message(s) came back to the DLQ: %s", len(o.Returned), GoBack)}}
	}
	if r.Target != "" {
		return judgeTarget(o, r)
	}
	var unmet, met []string
	dlq := o.DLQVisible + o.DLQInFlight
	if dlq <= int64(r.Left) {
		met = append(met, fmt.Sprintf("the DLQ holds %d (%d left on purpose)", dlq, r.Left))
	} else {
		unmet = append(unmet, fmt.Sprintf("the DLQ still holds %d (%d visible, %d in flight), %d expected", dlq, o.DLQVisible, o.DLQInFlight, r.Left))
	}
	if o.DestVisible+o.DestInFlight == 0 {
		met = append(met, fmt.Sprintf("%s drained", r.DestQueue))
	} else {
		unmet = append(unmet, fmt.Sprintf("%s not drained yet: %d visible, %d in flight", r.DestQueue, o.DestVisible, o.DestInFlight))
	}
	switch {
	case o.Deleted == nil:
		met = append(met, fmt.Sprintf("%s's NumberOfMessagesDeleted: no CloudWatch data, not judged", r.DestQueue))
	case *o.Deleted >= float64(r.Moved):
		met = append(met, fmt.Sprintf("%s deleted %.0f since the redrive began (%d moved)", r.DestQueue, *o.Deleted, r.Moved))
	default:
		unmet = append(unmet, fmt.Sprintf("%s deleted %.0f since the redrive began, fewer than the %d moved", r.DestQueue, *o.Deleted, r.Moved))
	}
	if len(unmet) > 0 {
		return Judgement{Reasons: unmet}
	}
	return Judgement{Done: true, Pass: true, Reasons: met}
}
