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
}

// pending is a picked message between Apply and Keep or Forget: counted
// only once it is about to be sent, so a message released over --max (or
// by the canary's bound) and repaired again later counts once.
type pending struct {
	pos      int
	original sqsjson.Message
	result   Result
}

// NewStep runs p with lim, keeping originals in a.
func NewStep(p *Program, lim Limits, a Archive) *Step {
	return &Step{Program: p, Limits: lim, Archive: a, preview: NewPreview(p), pending: map[string]pending{}, failed: map[string]bool{}}
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

// Apply runs the program on each message of a picked batch. send holds
// what to send in their place, in order: the repaired copy of a changed
// message (same MessageId and receipt handle, so the journal and the
// delete need nothing new), an unchanged message as it came. failed holds
// the rest.
func (s *Step) Apply(ctx context.Context, msgs []sqsjson.Message) (send []sqsjson.Message, failed []Failure) {
	return s.ApplyDecoded(ctx, msgs, nil)
}

// ApplyDecoded is Apply of msgs whose envelopes and payloads the caller
// read already, ds[i] being envelope.Decode(&msgs[i]) (nil: read them
// here): the redrive mover reads each message once for --key and
// --transform.
func (s *Step) ApplyDecoded(ctx context.Context, msgs []sqsjson.Message, ds []envelope.Decoded) (send []sqsjson.Message, failed []Failure) {
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
		s.pending[id] = pending{pos: first + i, original: msgs[i], result: r}
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
	}
}

// Figures is what the step counted so far.
func (s *Step) Figures() Figures {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.preview.Figures()
}
