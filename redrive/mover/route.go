package mover

import (
	"context"

	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Router picks each message's destination in a move of a shared DLQ, by
// the queue it came from (DeadLetterQueueSourceArn). A message it finds no
// destination for stays in the DLQ: never into a queue it did not come
// from, unless the operator named that queue and said --force.
type Router struct {
	// BySource maps a source queue's ARN to where its messages go.
	BySource map[string]*sqsapi.Queue
	// Sourceless is where a message without a source goes (nil: it stays):
	// the queue --to names.
	Sourceless *sqsapi.Queue
}

// Stay reasons, journaled on a skipped entry's error.
const (
	staySourceless = "no DeadLetterQueueSourceArn: move it with --to QUEUE"
	stayOther      = "came from another queue than the destination: left in the DLQ (--force sends it)"
)

// Route is m's destination, or nil and why it stays in the DLQ.
func (r *Router) Route(m *sqsjson.Message) (*sqsapi.Queue, string) {
	arn := m.SourceARN()
	if arn == "" {
		if r.Sourceless == nil {
			return nil, staySourceless
		}
		return r.Sourceless, ""
	}
	if q := r.BySource[arn]; q != nil {
		return q, ""
	}
	return nil, stayOther
}

// DestStats are one destination's figures in a move to several.
type DestStats struct {
	Moved  int `json:"moved"`  // sent by this run, or resumed
	Failed int `json:"failed"` // left in the DLQ after a 4xx or exhausted retries
}

// destFor is the destination of a message the mover holds. Called with
// m.mu held.
func (m *Mover) destFor(id string) *sqsapi.Queue {
	if q := m.dests[id]; q != nil {
		return q
	}
	return m.o.Dest
}

// route decides where msg goes, under the lock: the one destination, or
// the router's choice, remembered while the message is held.
func (m *Mover) route(msg *sqsjson.Message) (*sqsapi.Queue, string) {
	if m.o.Route == nil {
		return m.o.Dest, ""
	}
	q, why := m.o.Route.Route(msg)
	if q != nil {
		m.dests[msg.MessageId] = q
	}
	return q, why
}

// stay leaves a message the router sends nowhere in the DLQ: counted as
// skipped (and sourceless or from another queue), journaled with why.
// Called with m.mu held.
func (m *Mover) stay(p *triaged, msg sqsjson.Message, why string) {
	m.t.Finish(msg.MessageId)
	m.stats.Skipped++
	if why == staySourceless {
		m.stats.Sourceless++
	} else {
		m.stats.OtherSource++
	}
	p.skipped = append(p.skipped, journal.Entry{Time: m.o.Clock.Now().UTC(), Run: m.o.RunID, Attempt: m.o.Attempt, Op: journal.OpSkipped, DLQMessageID: msg.MessageId,
		BodySHA256: sqsjson.BodySHA256(msg.Body), Error: why})
	p.release = append(p.release, msg)
}

// overQuota tells whether a canary of EachMax per destination has its
// share for msg's destination already; if not it counts msg in. Called
// with m.mu held.
func (m *Mover) overQuota(msg *sqsjson.Message) bool {
	if m.o.EachMax <= 0 {
		return false
	}
	url := m.destFor(msg.MessageId).URL
	if m.quota[url] >= m.o.EachMax {
		return true
	}
	m.quota[url]++
	return false
}

// countDest adds n moved or failed messages to dest's figures when the
// move has several destinations. Called with m.mu held.
func (m *Mover) countDest(url string, moved, failed int) {
	if m.o.Route == nil {
		return
	}
	if m.stats.Dests == nil {
		m.stats.Dests = map[string]DestStats{}
	}
	d := m.stats.Dests[url]
	d.Moved += moved
	d.Failed += failed
	m.stats.Dests[url] = d
}

// byDest splits msgs by destination, in order of first appearance: one
// SendMessageBatch goes to one queue.
func (m *Mover) byDest(msgs []sqsjson.Message) ([]*sqsapi.Queue, [][]sqsjson.Message) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var qs []*sqsapi.Queue
	var groups [][]sqsjson.Message
	at := map[string]int{}
	for _, msg := range msgs {
		q := m.destFor(msg.MessageId)
		i, ok := at[q.URL]
		if !ok {
			i = len(qs)
			at[q.URL] = i
			qs = append(qs, q)
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], msg)
	}
	return qs, groups
}

// destVisible is the visible messages of the destination, or of the
// fullest destination of a routed move: --max-backlog holds the move while
// any consumer is behind.
func (m *Mover) destVisible(ctx context.Context) (int64, error) {
	qs := []*sqsapi.Queue{m.o.Dest}
	if m.o.Route != nil {
		qs = qs[:0]
		for _, q := range m.o.Route.BySource {
			qs = append(qs, q)
		}
	}
	var most int64
	for _, q := range qs {
		d, err := m.depth(ctx, q.URL)
		if err != nil {
			return 0, err
		}
		most = max(most, d.Visible)
	}
	return most, nil
}
