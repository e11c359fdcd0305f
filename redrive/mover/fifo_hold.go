package mover

import (
	"github.com/mfdlq/mfdlq/sqsapi"
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
// released and counted once (done: seen again, they are parked). Called
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
		m.t.Finish(msg.MessageId)
		p.release = append(p.release, msg)
		m.stats.HeldBack++
	}
	return kept
}

// SendMessageBatch on a FIFO queue keeps the order of a call's entries,
// but an entry refused in the middle of a call does not stop the later
// ones: had a group two messages in one call and the first failed, the
// second would reach the consumer ahead of it, and nothing can take it
// back. So from a FIFO DLQ to a FIFO queue a batch is sent in rounds —
// round k holds the k-th message of each group, in the batch's order — and
// a group one of whose messages stays in the DLQ has no later round
// (stopGroups). Many groups still fill a call; a single group goes one
// message a call, the price of its order.

// fifoRounds splits msgs (one received batch, each group's messages in its
// order) into rounds; one round, msgs itself, unless both the DLQ and dest
// are FIFO. A message without a MessageGroupId has no order to keep and
// goes in the first round.
func (m *Mover) fifoRounds(dest *sqsapi.Queue, msgs []sqsjson.Message) [][]sqsjson.Message {
	if m.o.Source == nil || !m.o.Source.FIFO || !dest.FIFO || m.o.Target != nil {
		return [][]sqsjson.Message{msgs}
	}
	var rounds [][]sqsjson.Message
	seen := map[string]int{}
	for _, msg := range msgs {
		k := 0
		if g := msg.Attributes[sqsjson.AttrMessageGroupId]; g != "" {
			k = seen[g]
			seen[g]++
		}
		if k == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[k] = append(rounds[k], msg)
	}
	return rounds
}

// stopGroups takes out of round the messages of the groups in stopped (an
// earlier round of this batch left one of their messages in the DLQ) and
// lets them go. A group blocked for the run (its message was refused) is
// held back: released, done, counted. A group whose message ran out of
// retries this time is released to come back behind it, in order (the run
// waits for that message, owed, and so sees them again).
func (m *Mover) stopGroups(round []sqsjson.Message, stopped map[string]bool) []sqsjson.Message {
	if len(stopped) == 0 {
		return round
	}
	var kept, held, again []sqsjson.Message
	m.mu.Lock()
	for _, msg := range round {
		switch g := msg.Attributes[sqsjson.AttrMessageGroupId]; {
		case !stopped[g]:
			kept = append(kept, msg)
		case m.blocked[g]:
			m.t.Finish(msg.MessageId)
			m.paid(msg.MessageId, false)
			m.stats.HeldBack++
			held = append(held, msg)
		default:
			again = append(again, msg)
		}
	}
	m.reserved -= len(held) + len(again)
	m.mu.Unlock()
	m.forget(held)
	m.forget(again)
	m.release(append(held, again...))
	return kept
}
