package mover

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/receipts"
)

// While the gate (Options.Gate) is closed the workers receive and hold
// what they received, hidden, until it opens: so that the first sends go
// as soon as it does. Each worker holds at most two batches (the one
// waiting at the gate and the next, received meanwhile), as when it
// moves; and the receives stop, the workers waiting at the gate, once the
// batches held
//
//   - weigh gateBytes (message bodies and attributes), or
//   - at a --rate, are more than the rate sends in half the visibility
//     timeout, or
//   - half the visibility timeout has passed since the move started:
//
// so what is held stays in memory's bounds and is sent before SQS shows
// it again. A gate that fails releases every batch at once (handle).

// gateBytes bounds what the batches held at a closed gate weigh: a third
// of the room MemoryLimit keeps for the SDK, the connections and the
// batches in flight. It is checked before each receive, so the receives
// in flight then may pass it by a batch each.
const gateBytes = 16 << 20

// gateState is the mover's side of the gate: when it opened, and what is
// held for it. Its counts are under Mover.mu.
type gateState struct {
	opened chan struct{} // closed when the gate returned (nil: no gate)
	msgs   int           // messages held, or asked for by a receive in flight
	bytes  int64         // what the held messages weigh
}

// setGate wraps Options.Gate: it is called once, by the first worker
// with a batch, and every worker (and every receive waiting for room)
// waits for its answer on a channel; the controller's first round starts
// when it opens (the time spent at the gate says nothing of throughput).
func (m *Mover) setGate() {
	if m.o.Gate == nil {
		return
	}
	m.gate.opened = make(chan struct{})
	gate := m.o.Gate
	var once sync.Once
	var err error
	m.o.Gate = func() error {
		once.Do(func() {
			go func() {
				defer close(m.gate.opened)
				if err = gate(); err == nil {
					m.ctl.Restart()
				}
			}()
		})
		<-m.gate.opened
		return err
	}
}

// gateOpen says the gate returned (or there is none).
func (m *Mover) gateOpen() bool {
	if m.gate.opened == nil {
		return true
	}
	select {
	case <-m.gate.opened:
		return true
	default:
		return false
	}
}

// awaitGate is called before a receive of n messages: while the gate is
// closed it takes room for them, or, when there is none, waits for the
// gate (or the run's end). It returns whether the receive is held for the
// gate (heldForGate then counts what came).
func (m *Mover) awaitGate(ctx context.Context) bool {
	if m.gateOpen() {
		return false
	}
	m.mu.Lock()
	room := m.gate.bytes < gateBytes &&
		(m.o.Rate <= 0 || float64(m.gate.msgs+batchSize) <= m.o.Rate*m.visibility().Seconds()/2) &&
		receipts.Since(m.o.Clock, m.started) < m.visibility()/2
	// With nothing held, nothing would ever ask the gate: the worker
	// receives (one batch, which then asks it).
	room = room || m.gate.msgs == 0
	if room {
		m.gate.msgs += batchSize
	}
	m.mu.Unlock()
	if room {
		return true
	}
	select {
	case <-m.gate.opened:
	case <-m.ended:
	case <-ctx.Done():
	}
	return false
}

// heldForGate counts what a receive that awaitGate let through brought.
func (m *Mover) heldForGate(msgs []types.Message) {
	var size int64
	for i := range msgs {
		size += messageBytes(&msgs[i])
	}
	m.mu.Lock()
	m.gate.msgs += len(msgs) - batchSize
	m.gate.bytes += size
	m.mu.Unlock()
}

// messageBytes is about what a received message weighs in memory: its
// body, its attributes, and its ids and receipt handle.
func messageBytes(msg *types.Message) int64 {
	n := int64(len(aws.ToString(msg.Body)) + len(aws.ToString(msg.ReceiptHandle)) + len(aws.ToString(msg.MessageId)) + len(aws.ToString(msg.MD5OfBody)))
	for k, v := range msg.MessageAttributes {
		n += int64(len(k) + len(aws.ToString(v.DataType)) + len(aws.ToString(v.StringValue)) + len(v.BinaryValue))
	}
	for k, v := range msg.Attributes {
		n += int64(len(k) + len(v))
	}
	return n
}
