package mover

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Transformer repairs the picked messages of a batch before they are sent
// (transform.Step, adapted by redrive): Apply gives the batch to send
// (each repaired copy in its original's place, with its MessageId and
// receipt handle) and the failures, ds[i] being msgs[i]'s envelope and
// payload, read once for the --key and the transform; Keep makes the
// originals of what is about to be sent durable, Forget drops those of
// copies that will not be sent now. The mover declares it and imports no
// transform package.
type Transformer interface {
	Apply(ctx context.Context, msgs []sqsjson.Message, ds []envelope.Decoded) (send []sqsjson.Message, failed []Failure)
	Keep(send []sqsjson.Message) error
	Forget(msgs []sqsjson.Message)
}

// Failure is a message the transform failed on: it stays in the DLQ.
// Position is its place in the run's selection; Again tells one failed on
// in an earlier phase (the canary), journaled and counted there.
type Failure struct {
	Message  sqsjson.Message
	Position int
	Reason   string
	Again    bool
}

// HaltTransform starts Stats.Halted when the transform failed on every
// message of the first batch: the program is broken, not the messages.
const HaltTransform = "transform failed on every one of the "

// transformPicked runs the transform on the picked messages, outside the
// lock (a jq program can be slow).
func (m *Mover) transformPicked(picked []sqsjson.Message, ds []envelope.Decoded) ([]sqsjson.Message, []Failure) {
	if m.o.Transform == nil || len(picked) == 0 {
		return picked, nil
	}
	return m.o.Transform.Apply(context.Background(), picked, ds)
}

// transformErrors counts, journals and releases the messages the transform
// failed on, as filterErrors does for the filter. Called under the lock.
func (m *Mover) transformErrors(p *triaged, failed []Failure, tried int, now time.Time) {
	first := !m.tprobed && tried > 0
	if tried > 0 {
		m.tprobed = true
	}
	for _, f := range failed {
		msg := f.Message
		m.t.Finish(msg.MessageId)
		p.release = append(p.release, msg)
		if f.Again { // journaled and counted by an earlier phase
			continue
		}
		m.stats.TransformErrors++
		text := fmt.Sprintf("message %d: %s", f.Position, f.Reason)
		p.skipped = append(p.skipped, journal.Entry{Time: now, Run: m.o.RunID, Attempt: m.o.Attempt, Op: journal.OpTransformFailed, DLQMessageID: msg.MessageId, BodySHA256: sqsjson.BodySHA256(msg.Body), DestQueue: m.destFor(msg.MessageId).URL, Error: f.Reason})
		if len(m.stats.TransformErrorTexts) < maxFilterErrorTexts && !slices.Contains(m.stats.TransformErrorTexts, text) {
			m.stats.TransformErrorTexts = append(m.stats.TransformErrorTexts, text)
		}
	}
	if first && len(failed) == tried && m.stats.Halted == "" {
		m.stats.Halted = HaltTransform + plural.Of(len(failed), "message") + " of the first batch"
	}
}

// PayloadHasher is a Transformer that knows the payload hash of what it
// let go to its send (the original's, or the copy's its re-wrap read
// back): the send journals it without reading the message again. ok is
// false for a message it does not know.
type PayloadHasher interface {
	PayloadSHA256(msg *sqsjson.Message) (sum string, ok bool)
}

// payloadSHA256 is the payload hash a send journals: the transform's, when
// it knows it, else read from the message.
func (m *Mover) payloadSHA256(msg *sqsjson.Message) string {
	if h, ok := m.o.Transform.(PayloadHasher); ok {
		if sum, ok := h.PayloadSHA256(msg); ok {
			return sum
		}
	}
	return envelope.PayloadSHA256(msg)
}

// forget drops the originals of repaired copies that will not be sent now.
func (m *Mover) forget(msgs []sqsjson.Message) {
	if m.o.Transform != nil && len(msgs) > 0 {
		m.o.Transform.Forget(msgs)
	}
}

// keepOriginals makes the originals of the batch's repaired copies durable
// before the batch is sent; false when they could not be kept: the run
// stops and nothing of the batch is sent.
func (m *Mover) keepOriginals(send []sqsjson.Message) bool {
	if m.o.Transform == nil || len(send) == 0 {
		return true
	}
	if err := m.o.Transform.Keep(send); err != nil {
		m.fail(err)
		return false
	}
	return true
}
