package redrive

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/redrive/journal"
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

// rivalAfterTag is the local SQS, except that right after this run's
// first lease tag is written a rival run (on another host, live) writes
// its own: the rival is the last writer, so this run's read-back after
// lease.Settle finds it and loses. It counts the receives that brought
// messages, the sends, and the messages made visible again at once.
type rivalAfterTag struct {
	sqsapi.Client
	url      string
	once     sync.Once
	mu       sync.Mutex
	received int
	sent     int
	released int
}

func (c *rivalAfterTag) TagQueue(ctx context.Context, in *sqs.TagQueueInput, opts ...func(*sqs.Options)) (*sqs.TagQueueOutput, error) {
	out, err := c.Client.TagQueue(ctx, in, opts...)
	c.once.Do(func() {
		rival := lease.Holder{Operator: "bo", Host: "laptop-9", PID: 7, Run: "rival-run", Since: time.Now().UTC().Truncate(time.Second), Expires: time.Now().Add(lease.TTL).UTC().Truncate(time.Second)}
		if _, rerr := c.Client.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(c.url), Tags: map[string]string{lease.Tag: rival.String()}}); rerr != nil {
			err = rerr
		}
	})
	return out, err
}

func (c *rivalAfterTag) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	out, err := c.Client.ReceiveMessage(ctx, in, opts...)
	if err == nil {
		c.mu.Lock()
		c.received += len(out.Messages)
		c.mu.Unlock()
	}
	return out, err
}

func (c *rivalAfterTag) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	c.mu.Lock()
	c.sent += len(in.Entries)
	c.mu.Unlock()
	return c.Client.SendMessageBatch(ctx, in, opts...)
}

func (c *rivalAfterTag) ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	out, err := c.Client.ChangeMessageVisibilityBatch(ctx, in, opts...)
	if err == nil {
		c.mu.Lock()
		for _, e := range in.Entries {
			if e.VisibilityTimeout == 0 {
				c.released++
			}
		}
		c.released -= len(out.Failed)
		c.mu.Unlock()
	}
	return out, err
}

// earlyRun resolves a --yes run (its lease taken ahead) of a DLQ holding
// n messages on the local server, with client wrapping the SDK's, and
// runs it: the mover starts while the lease is read back (moveGated).
func earlyRun(t *testing.T, n int, wrap func(c sqsapi.Client, dlqURL string) sqsapi.Client) (srcURL, dlqURL string, ws *incident.Workspace, sum *Summary, err error) {
	t.Helper()
	ctx := context.Background()
	env, _ := testEnv(t)
	env.NewEvent = func(step string, q *sqsapi.Queue) incident.Event { return incident.Event{Step: step, Queue: q.Name} }
	env.NoQuestion = true
	s := localaws.NewSeeder(localaws.Config(t))
	name := localaws.UniqueName("gated")
	srcURL, dlqURL, err = s.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	bodies := make([]string, n)
	for i := range bodies {
		bodies[i] = fmt.Sprintf(`{"n":%d}`, i)
	}
	if err := s.Send(ctx, dlqURL, bodies, nil); err != nil {
		t.Fatal(err)
	}
	env.SQS = wrap(env.SQS, dlqURL)
	dlq, err := sqsapi.Resolve(ctx, env.SQS, name+"-dlq", env.Region)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Resolve(ctx, env, Request{Canary: 0, MaxWorkers: 4, Visibility: 30}, dlq)
	if err != nil {
		t.Fatal(err)
	}
	if p.early == nil {
		t.Fatal("a --yes run took no lease ahead")
	}
	if ws, err = incident.Open(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	r := &runner{env: env, p: p}
	if !r.gated() {
		t.Fatal("a --yes run without a canary does not receive during the read-back")
	}
	sum, err = Run(ctx, env, ws, p)
	return srcURL, dlqURL, ws, sum, err
}

// A run that received while its lease was read back, and lost the
// read-back to a rival that wrote the tag after it, sends nothing: it
// exits as a run refused by the lease always did (a *lease.HeldError),
// having made visible again at once (ChangeMessageVisibility 0) every
// message it received — the DLQ holds them all, none in flight — and
// written no journal entry and no redrive event.
func TestEarlyReceivesReleasedWhenLeaseLost(t *testing.T) {
	var c *rivalAfterTag
	src, dlq, ws, sum, err := earlyRun(t, 40, func(inner sqsapi.Client, url string) sqsapi.Client {
		c = &rivalAfterTag{Client: inner, url: url}
		return c
	})
	var held *lease.HeldError
	if !errors.As(err, &held) || held.Holder.Run != "rival-run" {
		t.Fatalf("run that lost the read-back: %+v, %v; want held by rival-run", sum, err)
	}
	c.mu.Lock()
	received, sent, released := c.received, c.sent, c.released
	c.mu.Unlock()
	if received == 0 {
		t.Fatal("nothing was received while the lease was read back: the test proves nothing")
	}
	if sent != 0 {
		t.Fatalf("the run that lost its lease sent %d message(s)", sent)
	}
	if released != received {
		t.Fatalf("received %d, released at once %d", received, released)
	}
	s := localaws.NewSeeder(localaws.Config(t))
	ctx := context.Background()
	if v, f, err := s.Depth(ctx, dlq); err != nil || v != 40 || f != 0 {
		t.Fatalf("DLQ after the lost lease: %d visible, %d in flight, %v; want 40, 0", v, f, err)
	}
	if v, f, err := s.Depth(ctx, src); err != nil || v+f != 0 {
		t.Fatalf("destination after the lost lease: %d, %d, %v; want empty", v, f, err)
	}
	if entries, err := journal.ReadEntries(ws.Path(incident.JournalFile)); err != nil || len(entries) != 0 {
		t.Fatalf("journal after the lost lease: %d entries, %v; want none", len(entries), err)
	}
	if _, ok, err := ws.Latest("redrive"); err != nil || ok {
		t.Fatalf("a redrive event after the lost lease: %v, %v", ok, err)
	}
}

// The same run when it keeps its lease moves every message, once: the
// journal starts with its run entry, written when the lease was confirmed.
func TestEarlyReceivesMoveWhenLeaseHeld(t *testing.T) {
	src, dlq, ws, sum, err := earlyRun(t, 40, func(c sqsapi.Client, _ string) sqsapi.Client { return c })
	if err != nil || sum.Err != nil || sum.Moved != 40 {
		t.Fatalf("run: %v, %+v; want 40 moved", err, sum)
	}
	s := localaws.NewSeeder(localaws.Config(t))
	ctx := context.Background()
	got, err := s.Drain(ctx, src)
	if err != nil || len(got) != 40 {
		t.Fatalf("destination: %d, %v; want 40", len(got), err)
	}
	if v, f, err := s.Depth(ctx, dlq); err != nil || v+f != 0 {
		t.Fatalf("DLQ: %d, %d, %v; want empty", v, f, err)
	}
	entries, err := journal.ReadEntries(ws.Path(incident.JournalFile))
	if err != nil || len(entries) == 0 || entries[0].Op != journal.OpRun {
		t.Fatalf("journal: %v, %v; want the run's entry first", entries, err)
	}
}
