// Package verify decides step 6 of the runbook: did the fix hold? It
// recognises redriven messages that came back to the DLQ and judges each
// look at the queues; Result is verify's --output json and verify.json.
package verify

import (
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Verdict is verify's conclusion.
type Verdict string

// Verdicts of verify. NotProven is neither: nothing came back and no
// check failed, but what would prove the fix (the DLQ down to what was
// left, the destination's deletions, the target's own events, the end of
// the return window) had not all held when --wait ran out — look again,
// do not go back to step 2.
const (
	Pass      Verdict = "pass"
	Fail      Verdict = "fail"
	NotProven Verdict = "not_proven"
)

// VerdictOf is the verdict of pass (an old verify.json without a verdict
// has only pass: false was then every verdict that was not a pass).
func VerdictOf(pass bool) Verdict {
	if pass {
		return Pass
	}
	return Fail
}

// verdictOf is the verdict of a judgement: done and not passing is a
// failure (a return, a redriven event's error); not done is not proven.
func verdictOf(pass, done bool) Verdict {
	switch {
	case pass:
		return Pass
	case done:
		return Fail
	}
	return NotProven
}

// Word is the verdict as the human output prints it ("not proven").
func (v Verdict) Word() string {
	if v == NotProven {
		return "not proven"
	}
	return string(v)
}

// Result is verify's --output json and verify.json.
type Result struct {
	Pass       bool       `json:"pass"`
	Verdict    Verdict    `json:"verdict"`
	DLQVisible int64      `json:"dlq_visible"`
	Returned   []Returned `json:"returned"`
	Reasons    []string   `json:"reasons"`
	Moved      int        `json:"moved"`
	DestQueue  string     `json:"dest_queue"`
	Looks      int        `json:"looks"`
	// NewInDLQ are messages that reached the DLQ since the redrive and are
	// not redriven ones: a live queue's new failures, reported apart.
	NewInDLQ int `json:"new_in_dlq"`
	// Destinations is the verdict on each destination (one for a move to
	// one queue).
	Destinations []DestResult `json:"destinations"`
	Waited       float64      `json:"waited_seconds"`
	Last         Observation  `json:"last"`
	// Unchecked is what a pass could not check (no CloudWatch data).
	Unchecked []string `json:"unchecked"`
	// ToProve, on a not_proven verdict, is what would prove the fix: the
	// checks that had not held (Reasons) and the next look.
	ToProve string `json:"to_prove,omitempty"`
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
	// Dests are the destinations of a move to several (a shared DLQ's
	// messages each back to their own source); empty: DestQueue, Moved.
	Dests []Dest
	Sent  []Sent
	// Compacted, when set, matches the sends a compacted journal keeps only
	// as digests (a big move's: *journal.Ledger): by destination MessageId
	// of any attempt, and by payload hash with its first send. A digest
	// collision counts a foreign message as returned: verify then fails,
	// it never passes wrongly.
	Compacted CompactedSends
	// LatestAttempt is the redrive's latest attempt (0: as the journal's
	// sends say): a function's redriven events are that attempt's.
	LatestAttempt int
	// Window is a function's, topic's or bus's return window (nil: none
	// was read, and a target is never passed).
	ReturnWindow *ReturnWindow
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
	// DestQueue is the queue it was sent to, as the journal names it (its
	// URL).
	DestQueue string
	// PayloadSHA256 (envelope.PayloadSHA256) and SentAt are set for a send
	// to a function, topic or bus: a return comes back with a new
	// MessageId and a new envelope, and is known by its payload, arriving
	// after SentAt.
	PayloadSHA256 string
	SentAt        time.Time
	// Attempt is the redrive attempt that sent it (0: unknown, taken as
	// the first): a function's redriven events are the latest attempt's.
	Attempt int
}

// Returned is a redriven message found in the DLQ again.
type Returned struct {
	MessageID    string `json:"message_id"`
	DLQMessageID string `json:"dlq_message_id"`
	MatchedBy    string `json:"matched_by"`
	// DestQueue is the destination it came back from: the journal's, else
	// the DeadLetterQueueSourceArn SQS set on it ("" when neither says).
	DestQueue    string     `json:"dest_queue,omitempty"`
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
	s := indexSent(r.Sent)
	out := []Returned{}
	for i := range msgs {
		m := &msgs[i]
		hash := sqsjson.BodySHA256(m.Body)
		e, ok, how := s.match(m, hash, r)
		if !ok {
			continue
		}
		out = append(out, returnedOf(m, e, how, hash, seenAt))
	}
	return out
}

// sentIndex is the journal's sends by what a returned message can be
// matched with.
type sentIndex struct {
	byID, byHash map[string]Sent
	byPayload    map[string]Sent // the first send of each payload
}

func indexSent(sent []Sent) sentIndex {
	s := sentIndex{byID: map[string]Sent{}, byHash: map[string]Sent{}, byPayload: map[string]Sent{}}
	for _, e := range sent {
		if p, ok := s.byPayload[e.PayloadSHA256]; e.PayloadSHA256 != "" && (!ok || e.SentAt.Before(p.SentAt)) {
			s.byPayload[e.PayloadSHA256] = e
		}
		if e.DestMessageID != "" {
			s.byID[e.DestMessageID] = e
		}
		if e.BodySHA256 != "" {
			s.byHash[e.BodySHA256] = e
		}
	}
	return s
}

// match finds m's send (hash is its body's): by destination MessageId,
// by body hash for a native move, by payload hash when m arrived after
// the payload's first send, else among a compacted journal's digests.
// how is the matched_by of the Returned.
func (s sentIndex) match(m *sqsjson.Message, hash string, r Redriven) (e Sent, ok bool, how string) {
	if e, ok := s.byID[m.MessageId]; ok {
		return e, true, "message_id"
	}
	if e, ok := s.byHash[hash]; ok && r.Native {
		return e, true, "body_sha256"
	}
	if len(s.byPayload) > 0 {
		if p, found := s.byPayload[envelope.PayloadSHA256(m)]; found && envelope.ArrivedAfter(m, p.SentAt) {
			return p, true, "payload_sha256"
		}
	}
	if r.Compacted != nil {
		return matchCompacted(m, r)
	}
	return Sent{}, false, ""
}

// returnedOf is m, matched with its send e, as a Returned.
func returnedOf(m *sqsjson.Message, e Sent, how, hash string, seenAt time.Time) Returned {
	ret := Returned{MessageID: m.MessageId, DLQMessageID: e.DLQMessageID, MatchedBy: how, DestQueue: e.DestQueue, BodySHA256: hash, SeenAt: seenAt}
	if ret.DestQueue == "" {
		ret.DestQueue = m.Attributes["DeadLetterQueueSourceArn"]
	}
	if n, ok := m.ReceiveCount(); ok {
		ret.ReceiveCount = &n
	}
	if t, ok := m.FirstReceiveTime(); ok {
		ret.FirstReceive = &t
	}
	return ret
}

// matchCompacted matches m against the digests of a compacted journal,
// any attempt's (0); the DLQ MessageId is then unknown ("").
func matchCompacted(m *sqsjson.Message, r Redriven) (Sent, bool, string) {
	if r.Compacted.Returned(m.MessageId, 0) {
		return Sent{DestMessageID: m.MessageId}, true, "message_id"
	}
	if at, ok := r.Compacted.PayloadSentAt(envelope.PayloadSHA256(m), 0); ok && envelope.ArrivedAfter(m, at) {
		return Sent{SentAt: at}, true, "payload_sha256"
	}
	return Sent{}, false, ""
}

// Observation is one look at the queues during verify.
type Observation struct {
	DLQVisible  int64 `json:"dlq_visible"`
	DLQInFlight int64 `json:"dlq_in_flight"`
	DLQDelayed  int64 `json:"dlq_delayed"`
	// Peeked is how many distinct messages the look's peek saw: the DLQ's
	// messages it identified. Only a peek that saw every message the DLQ
	// holds tells new failures from returns.
	Peeked       int      `json:"peeked"`
	DestVisible  int64    `json:"dest_visible"`
	DestInFlight int64    `json:"dest_in_flight"`
	DestDelayed  int64    `json:"dest_delayed"`
	Deleted      *float64 `json:"dest_deleted"` // NumberOfMessagesDeleted over the move and after; nil: no data
	Sent         *float64 `json:"dest_sent"`    // NumberOfMessagesSent over the move; nil: no data
	// Partial is true when the minute the move began was left out of
	// Deleted and Sent: it also holds the destination's earlier traffic.
	Partial bool `json:"partial_first_minute"`
	// Events is what a Lambda target's logs showed of the redriven events
	// themselves (their Invoke request ids): never the function's whole
	// Errors or Invocations, which its own traffic moves. nil: not read.
	Events *EventsRun `json:"redriven_events,omitempty"`
	// Subscribers are the depths of a topic's or bus's subscriber queues
	// that fail back to this DLQ.
	Subscribers []SubscriberDepth `json:"subscribers,omitempty"`
	// At is the look.
	At time.Time `json:"at"`
	// FIFO: the DLQ is a FIFO queue, whose peek sees the first batch of
	// each message group only.
	FIFO     bool       `json:"-"`
	Returned []Returned `json:"-"` // shown once, at the top of verify.json
	// Dests is each destination's look (the flat Dest* fields above are
	// the first's).
	Dests []DestObservation `json:"-"` // shown in Result.Destinations
	// NoPeek: the DLQ was not peeked (--no-peek), so a message in it
	// cannot be told from a redriven one coming back.
	NoPeek bool `json:"no_peek,omitempty"`
}

// Judgement is verify's reading of one observation.
type Judgement struct {
	Done    bool
	Pass    bool
	Reasons []string
	// Unchecked says what a pass could not check (no CloudWatch data).
	Unchecked []string
	// Dests is the verdict on each destination; NewInDLQ the DLQ's
	// messages that are not redriven ones, on a live queue.
	Dests    []DestResult
	NewInDLQ int
}

// Judge reads an observation: any returned message fails at once.
// Otherwise the DLQ down to what was left and each destination passing
// (judgeQuiet, or judgeLive for a destination with traffic of its own)
// pass; anything else is not yet done. On a live queue, messages in the
// DLQ beyond what was left are new failures, not redriven messages: they
// are counted apart (NewInDLQ) and do not decide the verdict. What
// CloudWatch could not tell is listed in Unchecked.
func Judge(o Observation, r Redriven) Judgement {
	if len(o.Returned) > 0 {
		// A destination none came back from keeps its own checks' verdict.
		dests, _, _, _ := judgeDests(o, r)
		return Judgement{Done: true, Dests: dests, Reasons: []string{fmt.Sprintf("%s came back to the DLQ: %s", plural.Of(len(o.Returned), "redriven message"), GoBack)}}
	}
	if r.Target != "" {
		return judgeTarget(o, r)
	}
	dests, unmet, met, unchecked := judgeDests(o, r)
	live := false
	for _, d := range dests {
		live = live || d.Live
	}
	j := Judgement{Dests: dests}
	dlq := o.DLQVisible + o.DLQInFlight + o.DLQDelayed
	switch extra := dlq - int64(r.Left); {
	case extra <= 0:
		// A returned message would raise the depth above what was left:
		// the count proves it on a DLQ of any size, peeked or not.
		met = append([]string{fmt.Sprintf("the DLQ holds %d (%d left on purpose)%s", dlq, r.Left, peekedOf(o, dlq))}, met...)
	case live && !o.NoPeek && int64(o.Peeked) >= dlq:
		j.NewInDLQ = int(extra)
		met = append([]string{fmt.Sprintf("the DLQ holds %d: %d left on purpose, and %s since the redrive, not redriven messages (the peek saw all %d) — not this fix's verdict (run mfdlq classify: if they are the group you fixed, the fix did not hold)",
			dlq, r.Left, plural.Of(int(extra), "new failure"), o.Peeked)}, met...)
	case live && !o.NoPeek:
		unmet = append([]string{unseen(o, r, dlq, extra)}, unmet...)
	case o.NoPeek:
		unmet = append([]string{fmt.Sprintf("the DLQ holds %d, %d expected: without a peek (--no-peek) the %d more cannot be told from redriven messages coming back", dlq, r.Left, extra)}, unmet...)
	default:
		unmet = append([]string{fmt.Sprintf("the DLQ still holds %d (%d visible, %d in flight, %d delayed), %d expected", dlq, o.DLQVisible, o.DLQInFlight, o.DLQDelayed, r.Left)}, unmet...)
	}
	if o.NoPeek {
		unchecked = append(unchecked, "that no redriven message came back: --no-peek reads the DLQ's counts only")
	}
	if len(unmet) > 0 {
		j.Reasons = unmet
		return j
	}
	j.Done, j.Pass, j.Reasons, j.Unchecked = true, true, append(met, prefixed(unchecked)...), unchecked
	return j
}
