package lease

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// fakeQueue is one queue's tags as a replicated store might keep them, on
// the clock of a testing/synctest bubble: each call takes latency (half
// on the way in, half back), and a write becomes readable lag after it
// reached the queue — to every read alike, or, with sticky, at once to
// the client that wrote it and lag later to the others (a replica per
// client: reads that disagree).
type fakeQueue struct {
	latency, lag time.Duration
	sticky       bool

	mu  sync.Mutex
	ops []fakeOp
}

// fakeOp is one write as it reached the queue.
type fakeOp struct {
	at  time.Time
	by  int
	set map[string]string
	del []string
}

func (q *fakeQueue) add(op fakeOp) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ops = append(q.ops, op)
}

// read is the tags client by reads now: the writes readable to it, in
// the order they reached the queue.
func (q *fakeQueue) read(by int, now time.Time) map[string]string {
	q.mu.Lock()
	defer q.mu.Unlock()
	tags := map[string]string{}
	for _, op := range q.ops {
		if now.Before(op.at.Add(q.lag)) && !(q.sticky && op.by == by) {
			continue
		}
		maps.Copy(tags, op.set)
		for _, k := range op.del {
			delete(tags, k)
		}
	}
	return tags
}

// fakeClient is one run's connection to q: its first TagQueue stalls
// before it leaves (a throttled call retried with backoff, a GC pause, a
// laptop lid closed).
type fakeClient struct {
	q     *fakeQueue
	id    int
	stall time.Duration

	mu      sync.Mutex
	stalled bool
	calls   map[string]int
}

func (c *fakeClient) call(name string, do func()) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[name]++
	stall := name == "TagQueue" && !c.stalled
	if stall {
		c.stalled = true
	}
	c.mu.Unlock()
	if stall {
		time.Sleep(c.stall)
	}
	time.Sleep(c.q.latency / 2)
	do()
	time.Sleep(c.q.latency / 2)
}

func (c *fakeClient) TagQueue(_ context.Context, in *sqs.TagQueueInput, _ ...func(*sqs.Options)) (*sqs.TagQueueOutput, error) {
	c.call("TagQueue", func() { c.q.add(fakeOp{at: time.Now(), by: c.id, set: maps.Clone(in.Tags)}) })
	return &sqs.TagQueueOutput{}, nil
}

func (c *fakeClient) UntagQueue(_ context.Context, in *sqs.UntagQueueInput, _ ...func(*sqs.Options)) (*sqs.UntagQueueOutput, error) {
	c.call("UntagQueue", func() { c.q.add(fakeOp{at: time.Now(), by: c.id, del: append([]string(nil), in.TagKeys...)}) })
	return &sqs.UntagQueueOutput{}, nil
}

func (c *fakeClient) ListQueueTags(_ context.Context, _ *sqs.ListQueueTagsInput, _ ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error) {
	var tags map[string]string
	c.call("ListQueueTags", func() { tags = c.q.read(c.id, time.Now()) })
	return &sqs.ListQueueTagsOutput{Tags: tags}, nil
}

var _ Tags = (*fakeClient)(nil)
