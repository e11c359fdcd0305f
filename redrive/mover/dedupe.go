package mover

import (
	"time"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// heldKey is the key a message in flight holds, and the destination it
// holds it for (a shared DLQ's messages each go to their own).
type heldKey struct {
	dest string
	j    dedupe.Judged
}

// judge evaluates the --key of the picked messages, outside the lock (a
// jq expression can be slow), ds[i] being picked[i]'s payload
// (decodePicked); nil without --dedupe.
func (m *Mover) judge(picked []sqsjson.Message, ds []envelope.Decoded) map[string]dedupe.Judged {
	if m.o.Dedupe == nil || len(picked) == 0 {
		return nil
	}
	out := make(map[string]dedupe.Judged, len(picked))
	for i := range picked {
		out[picked[i].MessageId] = m.o.Dedupe.Judge(&picked[i], ds[i].Value, ds[i].Err)
	}
	return out
}

// decodePicked reads each picked message's envelope and payload once, for
// both the --key and the transform (nil when neither runs): each read
// again detected the envelope and parsed the payload again.
func (m *Mover) decodePicked(picked []sqsjson.Message) []envelope.Decoded {
	if m.o.Dedupe == nil && m.o.Transform == nil || len(picked) == 0 {
		return nil
	}
	ds := make([]envelope.Decoded, len(picked))
	for i := range picked {
		ds[i] = envelope.Decode(&picked[i])
	}
	return ds
}

// dedupe keeps the first message of each key, among the batch's messages
// that survived the bound's cut, and leaves the others in the
// DLQ: journaled "duplicate" once, made visible again, never deleted. A
// key is taken when another message of it is in flight (this batch or a
// worker's) or the journal says one was sent to the same destination — in
// this run, the canary, a killed run resumed, or an earlier attempt unless
// this message is the one that came back from it. The keys kept are held
// until their batch is sent (unclaim). Called under the lock.
func (m *Mover) dedupe(p *triaged, picked []sqsjson.Message, judged map[string]dedupe.Judged, now time.Time) []sqsjson.Message {
	if m.o.Dedupe == nil {
		return picked
	}
	if m.keys == nil {
		m.keys = map[string]heldKey{}
	}
	kept := picked[:0]
	for _, msg := range picked {
		id, j, dest := msg.MessageId, judged[msg.MessageId], m.destFor(msg.MessageId).URL
		taken := func(d uint64) bool {
			now, before := m.o.State.KeySent(dest, d)
			return now || before && !m.o.State.ReturnedFromAnyAttempt(id)
		}
		if m.o.Dedupe.Claim(dest, id, j, taken) {
			m.keys[id] = heldKey{dest: dest, j: j}
			kept = append(kept, msg)
			continue
		}
		m.forget([]sqsjson.Message{msg})
		if m.o.EachMax > 0 {
			m.quota[dest]-- // a canary per destination: its share goes to a first
		}
		m.t.Finish(id)
		p.release = append(p.release, msg)
		if m.o.Dedupe.Left(id, j) {
			p.skipped = append(p.skipped, journal.Entry{Time: now, Run: m.o.RunID, Attempt: m.o.Attempt, Op: journal.OpDuplicate, DLQMessageID: id,
				BodySHA256: sqsjson.BodySHA256(msg.Body), DestQueue: dest, Key: dedupe.Hex(j.Digest)})
		}
	}
	return kept
}

// unclaim lets go of the keys of msgs once their batch is done: sent
// (their 'sent' entries, which carry the key, are journaled) or not sent
// now (released, deferred, failed). Called under the lock.
func (m *Mover) unclaim(msgs []sqsjson.Message) {
	if m.o.Dedupe == nil {
		return
	}
	for _, msg := range msgs {
		if h, ok := m.keys[msg.MessageId]; ok {
			m.o.Dedupe.Release(h.dest, msg.MessageId, h.j)
			delete(m.keys, msg.MessageId)
		}
	}
}

// keyOf is the journal's Key of a message about to be sent ("" without
// --dedupe or without a key).
func (m *Mover) keyOf(id string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if h, ok := m.keys[id]; ok && h.j.Digest != 0 {
		return dedupe.Hex(h.j.Digest)
	}
	return ""
}

func (m *Mover) unclaimLocked(msgs []sqsjson.Message) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.unclaim(msgs)
}
