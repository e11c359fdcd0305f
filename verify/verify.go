// Package verify decides step 6 of the runbook: did the fix hold? It
// recognises redriven messages that came back to the DLQ and judges each
// look at the queues; Result is verify's --output json and verify.json.
package verify

import (
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Verdict is verify's conclusion.
type Verdict string

// Verdicts of verify.
const (
	Pass Verdict = "pass"
	Fail Verdict = "fail"
)

// VerdictOf is the verdict of pass.
func VerdictOf(pass bool) Verdict {
	if pass {
		return Pass
	}
	return Fail
}

// Result is verify's --output json and verify.json.
type Result struct {
	Pass       bool        `json:"pass"`
	Verdict    Verdict     `json:"verdict"`
	DLQVisible int64       `json:"dlq_visible"`
	Returned   []Returned  `json:"returned"`
	Reasons    []string    `json:"reasons"`
	Moved      int         `json:"moved"`
	DestQueue  string      `json:"dest_queue"`
	Looks      int         `json:"looks"`
	Waited     float64     `json:"waited_seconds"`
	Last       Observation `json:"last"`
	// Unchecked is what a pass could not check (no CloudWatch data).
	Unchecked []string `json:"unchecked"`
}

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
	// EndedAt is when the move ended (zero when unknown).
	EndedAt time.Time
	// Native is a move by SQS's own move task: the moved messages got new
	// ids, so they are recognised by body hash.
	Native bool
	// Target is "lambda", "sns" or "events" for a redrive to a function,
	// topic or bus (DestURL is then its ARN): returns are recognised by
	// payload hash, and there is no destination queue to drain.
	Target string
	Sent   []Sent
	// Compacted, when set, matches the sends a compacted journal keeps only
	// as digests (a big move's: *redrive.Ledger): by destination MessageId
	// of attempt Attempt (0: any), and by payload hash with its first send.
	// A digest collision counts a foreign message as returned: verify then
	// fails, it never passes wrongly.
	Compacted CompactedSends
	Attempt   int
}

// CompactedSends is the compacted journal's side of MatchReturned.
type CompactedSends interface {
	Returned(messageID string, attempt int) bool
	PayloadSentAt(payloadSHA256 string, attempt int) (time.Time, bool)
}

// Sent is one message the redrive sent, as its journal recorded it: the
// caller reads the journal, verify only matches.
type Sent struct {
	DLQMessageID  string
	DestMessageID string
	BodySHA256    string
	// PayloadSHA256 (envelope.PayloadSHA256) and SentAt are set for a send
	// to a function, topic or bus: a return comes back with a new
	// MessageId and a new envelope, and is known by its payload, arriving
	// after SentAt.
	PayloadSHA256 string
	SentAt        time.Time
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
// the DLQ, by body hash for a native move, or by payload hash for a redrive
// to a function, topic or bus when the message reached the DLQ after the
// payload's first send (a duplicate already there is not a return).
func MatchReturned(msgs []sqsjson.Message, r Redriven, seenAt time.Time) []Returned {
	byID := map[string]Sent{}
	byHash := map[string]Sent{}
	byPayload := map[string]Sent{} // the first send of each payload
	for _, e := range r.Sent {
		if p, ok := byPayload[e.PayloadSHA256]; e.PayloadSHA256 != "" && (!ok || e.SentAt.Before(p.SentAt)) {
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
		hash := sqsjson.BodySHA256(m.Body)
		if !ok && r.Native {
			e, ok = byHash[hash]
			how = "body_sha256"
		}
		if !ok && len(byPayload) > 0 {
			if p, found := byPayload[envelope.PayloadSHA256(m)]; found && envelope.ArrivedAfter(m, p.SentAt) {
				e, ok, how = p, true, "payload_sha256"
			}
		}
		if !ok && r.Compacted != nil {
			e, ok, how = matchCompacted(m, r)
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

// matchCompacted matches m against the digests of a compacted journal;
// the DLQ MessageId is then unknown ("").
func matchCompacted(m *sqsjson.Message, r Redriven) (Sent, bool, string) {
	if r.Compacted.Returned(m.MessageId, r.Attempt) {
		return Sent{DestMessageID: m.MessageId}, true, "message_id"
	}
	if at, ok := r.Compacted.PayloadSentAt(envelope.PayloadSHA256(m), r.Attempt); ok && envelope.ArrivedAfter(m, at) {
		return Sent{SentAt: at}, true, "payload_sha256"
	}
	return Sent{}, false, ""
}

// Observation is one look at the queues during verify.
type Observation struct {
	DLQVisible   int64    `json:"dlq_visible"`
	DLQInFlight  int64    `json:"dlq_in_flight"`
	DestVisible  int64    `json:"dest_visible"`
	DestInFlight int64    `json:"dest_in_flight"`
	Deleted      *float64 `json:"dest_deleted"` // NumberOfMessagesDeleted over the move and after; nil: no data
	Sent         *float64 `json:"dest_sent"`    // NumberOfMessagesSent over the move; nil: no data
	// Partial is true when the minute the move began was left out of
	// Deleted and Sent: it also holds the destination's earlier traffic.
	Partial bool `json:"partial_first_minute"`
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
	// Unchecked says what a pass could not check (no CloudWatch data).
	Unchecked []string
}

// Judge reads an observation: any returned message fails at once;
// the DLQ down to what was left, the destination drained, and — when
// CloudWatch has the metrics — at least Moved messages sent to the
// destination over the move (evidence it received them: a FIFO queue
// drops a send it takes for a duplicate, silently) and at least Moved
// deleted since, pass; anything else is not yet done. What CloudWatch
// could not tell is listed in Unchecked.
func Judge(o Observation, r Redriven) Judgement {
	if len(o.Returned) > 0 {
		return Judgement{Done: true, Reasons: []string{fmt.Sprintf("%s came back to the DLQ: %s", plural.Of(len(o.Returned), "redriven message"), GoBack)}}
	}
	if r.Target != "" {
		return judgeTarget(o, r)
	}
	var unmet, met, unchecked []string
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
	for _, m := range []struct {
		name, verb string
		v          *float64
	}{{cwapi.MetricMessagesSent, "received", o.Sent}, {cwapi.MetricMessagesDeleted, "deleted", o.Deleted}} {
		switch {
		case m.v == nil:
			unchecked = append(unchecked, fmt.Sprintf("that %s %s what was moved: CloudWatch has no %s for it over the move", r.DestQueue, m.verb, m.name))
		case *m.v >= float64(r.Moved):
			met = append(met, fmt.Sprintf("%s %s %.0f over the move (%s; %d moved)", r.DestQueue, m.verb, *m.v, m.name, r.Moved))
		case o.Partial:
			unchecked = append(unchecked, fmt.Sprintf("that %s %s what was moved: %s counts %.0f of %d after the move's first minute, which also holds earlier traffic and is left out", r.DestQueue, m.verb, m.name, *m.v, r.Moved))
		default:
			unmet = append(unmet, fmt.Sprintf("%s %s %.0f over the move (%s), fewer than the %d moved", r.DestQueue, m.verb, *m.v, m.name, r.Moved))
		}
	}
	if len(unmet) > 0 {
		return Judgement{Reasons: unmet}
	}
	for _, u := range unchecked {
		met = append(met, "not checked: "+u)
	}
	return Judgement{Done: true, Pass: true, Reasons: met, Unchecked: unchecked}
}

// MoveMetric sums a metric's per-minute points over a move that began at
// start, counting nothing from before it: the minute start falls in
// (CloudWatch's finest period for SQS) is counted only when the minute
// before it was quiet (no data or zero), so that its count is the move's;
// partial says it was left out. points are one-minute sums from the minute
// before start on. nil when there is no point at or after start's minute.
func MoveMetric(points []cwapi.Point, start time.Time) (sum *float64, partial bool) {
	first := start.UTC().Truncate(time.Minute)
	aligned := first.Equal(start.UTC())
	quiet := true
	for _, p := range points {
		if p.Time.Equal(first.Add(-time.Minute)) && p.Value > 0 {
			quiet = false
		}
	}
	var total float64
	seen := false
	for _, p := range points {
		switch {
		case p.Time.Before(first):
			continue
		case p.Time.Equal(first) && !aligned && !quiet:
			partial = true
			continue
		}
		total += p.Value
		seen = true
	}
	if !seen && !partial {
		return nil, false
	}
	return &total, partial
}
