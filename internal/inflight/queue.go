package inflight

import "time"

// queue is what one queue has in flight.
type queue struct {
	msgs     map[string]*held // MessageId → its latest receive
	handles  map[string]string
	reserved int // asked of the backend by receives under way
	vis      time.Duration
	visKnown bool
}

type held struct {
	handle string
	until  time.Time
}

// drop forgets the message of handle: deleted.
func (q *queue) drop(handle string) {
	if id, ok := q.handles[handle]; ok {
		delete(q.handles, handle)
		delete(q.msgs, id)
	}
}

// change sets the message's new timeout; 0 (or left out, as the SDK does
// with a zero) makes it visible, out of flight.
func (q *queue) change(handle string, seconds *int, now time.Time) {
	id, ok := q.handles[handle]
	if !ok {
		return
	}
	if seconds == nil || *seconds <= 0 {
		q.drop(handle)
		return
	}
	q.msgs[id].until = now.Add(time.Duration(*seconds) * time.Second)
}

func (p *Proxy) queue(name string) *queue {
	q := p.queues[name]
	if q == nil {
		q = &queue{msgs: map[string]*held{}, handles: map[string]string{}}
		p.queues[name] = q
	}
	return q
}

// expire drops the messages whose visibility timeout has ended.
func (p *Proxy) expire(q *queue) {
	now := p.Now()
	for id, h := range q.msgs {
		if !now.Before(h.until) {
			delete(q.handles, h.handle)
			delete(q.msgs, id)
		}
	}
}
