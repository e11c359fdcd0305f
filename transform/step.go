package transform

import (
	"context"
	"errors"
	"sync"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Archive keeps the originals of the copies about to be sent, durably
// when Append returns nil (archive.Originals).
type Archive interface {
	Append(msgs []sqsjson.Message) error
}

// ErrArchive wraps an Archive failure: no copy of that batch may be sent,
// and the run stops (the disk under the incident is full or gone).
var ErrArchive = errors.New("cannot keep the originals")

// Step is the transform as the redrive mover runs it, batch by batch:
// Apply repairs what the selection picked (positions counted across the
// run), Keep makes the originals of exactly the copies about to be sent
// durable, Forget drops the originals of copies that will not be sent
// this time. It counts a changed or unchanged message when it is about to
// be sent (Keep), and a message failed on once however often it is seen
// (it keeps their MessageIds: one entry per failure). It is safe for concurrent use; it holds originals only
// between Apply and Keep or Forget, so memory stays within the batches in
// flight.
type Step struct {
	Program *Program
	Limits  Limits
	Archive Archive

	mu      sync.Mutex
	pos     int
	preview *Preview
	pending map[string]pending // MessageId → a message repaired (or left) and not yet sent
	failed  map[string]bool    // MessageIds failed on: counted once (the canary and the rest both see them)
	// sums are the payload hashes of the messages Keep let go to their
	// send, until the send asks (PayloadSHA256) or Forget drops them.
	sums map[string]sentSum
}

// sentSum is the payload hash of the message with body about to be sent.
type sentSum struct{ body, sum string }

// pending is a picked message between Apply and Keep or Forget: counted
// only once it is about to be sent, so a message released over --max (or
// by the canary's bound) and repaired again later counts once.
type pending struct {
	pos      int
	original sqsjson.Message
	result   Result
	sum      string // the sent message's payload hash ("": not known)
}

// NewStep runs p with lim, keeping originals in a.
func NewStep(p *Program, lim Limits, a Archive) *Step {
	return &Step{Program: p, Limits: lim, Archive: a, preview: NewPreview(p), pending: map[string]pending{}, failed: map[string]bool{}, sums: map[string]sentSum{}}
}

// Failure is a message the program failed on: it stays in the DLQ.
type Failure struct {
	Message  sqsjson.Message
	Position int
	Reason   string
	// Again tells a message this step failed on before (the canary's
	// mover saw it, now the rest's does): journaled and counted once.
	Again bool
}

// Apply runs the program on each message of a picked batch, ds[i] being
// envelope.Decode(&msgs[i]) when the caller read them already (the redrive
// mover reads each message once for --key and --transform; nil: read
// here). send holds what to send in their place, in order: the repaired
// copy of a changed message (same MessageId and receipt handle, so the
// journal and the delete need nothing new), an unchanged message as it
// came. failed holds the rest.
func (s *Step) Apply(ctx context.Context, msgs []sqsjson.Message, ds []envelope.Decoded) (send []sqsjson.Message, failed []Failure) {
	s.mu.Lock()
	first := s.pos + 1
	s.pos += len(msgs)
	s.mu.Unlock()
	results := make([]Result, len(msgs))
	for i := range msgs {
		// Outside the lock: jq can be slow.
		if ds != nil {
			results[i] = s.Program.ApplyDecoded(ctx, &msgs[i], ds[i], s.Limits)
		} else {
			results[i] = s.Program.Apply(ctx, &msgs[i], s.Limits)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range results {
		id := msgs[i].MessageId
		if r.Outcome == Failed {
			again := s.failed[id]
			if !again {
				s.failed[id] = true
				s.preview.Add(first+i, &msgs[i], r)
			}
			failed = append(failed, Failure{Message: msgs[i], Position: first + i, Reason: r.Reason, Again: again})
			continue
		}
		pd := pending{pos: first + i, original: msgs[i], result: r}
		if ds != nil {
			pd.sum = sentPayloadSHA256(&ds[i], msgs[i].Body, r)
		}
		s.pending[id] = pd
		send = append(send, *r.Message)
	}
	return send, failed
}

// Keep appends the originals of the repaired copies among send, durably,
// before they are sent; an error (ErrArchive) means none may be sent.
func (s *Step) Keep(send []sqsjson.Message) error {
	s.mu.Lock()
	var keep []sqsjson.Message
	for _, m := range send {
		pd, ok := s.pending[m.MessageId]
		if !ok {
			continue
		}
		delete(s.pending, m.MessageId)
		if pd.sum != "" {
			s.sums[m.MessageId] = sentSum{body: m.Body, sum: pd.sum}
		}
		s.preview.Add(pd.pos, &pd.original, pd.result)
		if pd.result.Outcome == Changed {
			keep = append(keep, pd.original)
		}
	}
	s.mu.Unlock()
	if len(keep) == 0 {
		return nil
	}
	if err := s.Archive.Append(keep); err != nil {
		return errors.Join(ErrArchive, err)
	}
	return nil
}

// Forget drops the originals of msgs, copies that will not be sent now
// (released over --max, or the run halted): a later receive repairs them
// again.
func (s *Step) Forget(msgs []sqsjson.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range msgs {
		delete(s.pending, m.MessageId)
		delete(s.sums, m.MessageId)
	}
}

// PayloadSHA256 is envelope.PayloadSHA256 of m, a message Keep let go to
// its send, as Apply read it: the original's payload, or the repaired
// copy's, which the re-wrap read back. ok is false for a message it does
// not know by that body (the caller reads it then); it is told once.
// What it keeps is the sends in flight, and the few whose send failed
// until their message is repaired again or dropped (Forget).
func (s *Step) PayloadSHA256(m *sqsjson.Message) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.sums[m.MessageId]
	if !ok || h.body != m.Body {
		return "", false
	}
	delete(s.sums, m.MessageId)
	return h.sum, true
}

// sentPayloadSHA256 is the payload hash of what goes in m's place, d
// being m's envelope and payload and r the program's outcome: the new
// payload's (the re-wrap checked the copy reads back around it), else
// the original's; "" for a failure.
func sentPayloadSHA256(d *envelope.Decoded, body string, r Result) string {
	switch {
	case r.Outcome == Failed:
		return ""
	case r.Outcome == Changed && r.PayloadChanged:
		return envelope.HashPayload(r.After)
	}
	return d.PayloadSHA256(body)
}

// Figures is what the step counted so far.
func (s *Step) Figures() Figures {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.preview.Figures()
}
