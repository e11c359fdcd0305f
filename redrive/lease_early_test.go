package redrive

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// taggedFirst is the local SQS, except that the DLQ's source queues are
// read only once the lease's tag is written (or after 10 s): a lease taken
// while Resolve reads passes at once, one taken after it waits.
type taggedFirst struct {
	sqsapi.Client
	once   sync.Once
	tagged chan struct{}
	waited time.Duration
}

func (c *taggedFirst) TagQueue(ctx context.Context, in *sqs.TagQueueInput, opts ...func(*sqs.Options)) (*sqs.TagQueueOutput, error) {
	out, err := c.Client.TagQueue(ctx, in, opts...)
	c.once.Do(func() { close(c.tagged) })
	return out, err
}

func (c *taggedFirst) ListDeadLetterSourceQueues(ctx context.Context, in *sqs.ListDeadLetterSourceQueuesInput, opts ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error) {
	start := time.Now()
	select {
	case <-c.tagged:
	case <-time.After(10 * time.Second):
	}
	c.waited = time.Since(start)
	return c.Client.ListDeadLetterSourceQueues(ctx, in, opts...)
}

// A run that will not ask (--yes) holds the DLQ's tag by the time Resolve
// returns — its read-back under way while the guard reads — and a plan
// that Run never takes up gives it back; one that will ask (or a dry run)
// writes nothing before the question.
func TestEarlyLease(t *testing.T) {
	ctx := context.Background()
	env, _ := testEnv(t)
	_, dlq := pairOf(t, env, "early")

	p, err := Resolve(ctx, env, Request{Canary: -1, MaxWorkers: 64}, dlq)
	if err != nil {
		t.Fatal(err)
	}
	if p.early != nil {
		t.Fatal("a run that asks took its lease before the question")
	}
	if _, ok, _ := lease.CurrentHolder(ctx, env.SQS, dlq.URL); ok {
		t.Fatal("a run that asks wrote the tag before the question")
	}

	env.NoQuestion = true
	gate := &taggedFirst{Client: env.SQS, tagged: make(chan struct{})}
	env.SQS = gate
	p, err = Resolve(ctx, env, Request{Canary: -1, MaxWorkers: 64}, dlq)
	if err != nil {
		t.Fatal(err)
	}
	if p.early == nil {
		t.Fatal("a run that does not ask took no lease ahead")
	}
	if gate.waited >= 10*time.Second {
		t.Fatal("Resolve read the source queues before the lease was written: the lease was not taken while it read")
	}
	if h, ok, err := lease.CurrentHolder(ctx, env.SQS, dlq.URL); err != nil || !ok || h.Run != p.early.run {
		t.Fatalf("tag after Resolve: %+v %v %v, want run %s", h, ok, err, p.early.run)
	}
	// CheckLease's look, made beside the lease, may read the tag this run
	// wrote: it is no other run's.
	p.reads = nil
	if err := CheckLease(ctx, env, p); err != nil {
		t.Fatalf("CheckLease after this run's own lease was written: %v", err)
	}
	DropEarlyLease(ctx, env, p)
	if h, ok, err := lease.CurrentHolder(ctx, env.SQS, dlq.URL); err != nil || ok {
		t.Fatalf("tag after DropEarlyLease: %+v %v %v, want none", h, ok, err)
	}
}
