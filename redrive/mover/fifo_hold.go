package mover

import (
	"github.com/mfdlq/mfdlq/sqsjson"
)

// A FIFO queue promises one thing: a message group's messages are
// consumed in order. A selected message that stays in the DLQ because it
// failed — the transform failed on it or made one SQS would refuse (too
// big, a bad attribute), or its send was refused (a 4xx, retries run out)
// — is still ahead of the rest of its group; sending them would deliver
// the group out of order. So its group is held back for the rest of the
// run: the later messages of that group are left in the DLQ (released,
// untouched, counted in Stats.HeldBack), and a later run moves the group
// once its first message is dealt with. A message the operator did not
// select (--filter, --group, --sent-*) is not a failure: it is skipped as
// documented and holds nothing back.

// blockGroup holds back msg's group for the rest of the run when the DLQ
// is FIFO. Called under the lock.
func (m *Mover) blockGroup(msg *sqsjson.Message) {
	g := msg.Attributes[sqsjson.AttrMessageGroupId]
	if g == "" || m.o.Source == nil || !m.o.Source.FIFO {
		return
	}
	if m.blocked == nil {
		m.blocked = map[string]bool{}
	}
	m.blocked[g] = true
}

// holdBack takes out of send (what the batch is about to send) the
// messages whose group a failed message blocks: one of this batch's
// failures ahead of it (order is the batch as received, which on a FIFO
// DLQ keeps each group's order), or one of an earlier batch. They are
// released and counted once (noted: seen again, they are parked). Called
// under the lock.
func (m *Mover) holdBack(p *triaged, order, send []sqsjson.Message, failed []Failure) []sqsjson.Message {
	if m.o.Source == nil || !m.o.Source.FIFO {
		return send
	}
	bad := make(map[string]bool, len(failed))
	for _, f := range failed {
		bad[f.Message.MessageId] = true
	}
	held := map[string]bool{}
	for i := range order {
		msg := &order[i]
		switch g := msg.Attributes[sqsjson.AttrMessageGroupId]; {
		case g == "":
		case bad[msg.MessageId]:
			m.blockGroup(msg)
		case m.blocked[g]:
			held[msg.MessageId] = true
		}
	}
	if len(held) == 0 {
		return send
	}
	kept := send[:0]
	for _, msg := range send {
		if !held[msg.MessageId] {
			kept = append(kept, msg)
			continue
		}
		m.forget([]sqsjson.Message{msg})
		m.noted.add(msg.MessageId)
		p.release = append(p.release, msg)
		m.stats.HeldBack++
	}
	return kept
}
