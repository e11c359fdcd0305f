package mover

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// countingSQS counts what the mover asks of the fake SQS.
type countingSQS struct {
	*fakeSQS
	mu                 sync.Mutex
	receives, received int
	depths             int
	firstReceive       time.Duration // how long the first receive takes
	firstReceiveTaken  bool
}

func (c *countingSQS) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	c.mu.Lock()
	delay := time.Duration(0)
	if !c.firstReceiveTaken {
		c.firstReceiveTaken, delay = true, c.firstReceive
	}
	c.receives++
	c.mu.Unlock()
	time.Sleep(delay)
	out, err := c.fakeSQS.ReceiveMessage(ctx, in, opts...)
	if err == nil {
		c.mu.Lock()
		c.received += len(out.Messages)
		c.mu.Unlock()
	}
	return out, err
}

func (c *countingSQS) GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, opts ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	c.mu.Lock()
	c.depths++
	c.mu.Unlock()
	return c.fakeSQS.GetQueueAttributes(ctx, in, opts...)
}

func (c *countingSQS) counts() (receives, received, depths int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.receives, c.received, c.depths
}

// newMoverOn is setup.run's mover on c, to be run by the test.
func (s *setup) newMoverOn(t *testing.T, c SQS, mod func(*Options)) *Mover {
	t.Helper()
	f, err := os.OpenFile(s.journal, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	jw := journal.NewWriter(f)
	t.Cleanup(func() { jw.Close() })
	o := Options{
		Source: &sqsapi.Queue{Name: "orders-dlq", URL: dlqURL}, Dest: &sqsapi.Queue{Name: "orders", URL: destURL},
		Workers: 2, Max: 1000, Backlog: 1000, RunID: "test", Journal: jw, State: stateOf(t, 1), Wait: 1, Visibility: 30,
	}
	mod(&o)
	m, err := NewMover(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// gatedRun runs a move of s's DLQ whose gate stays closed until every
// goroutine of the run waits (in a bubble: synctest.Wait), and returns
// how many messages it had received by then, and the run's figures.
func gatedRun(t *testing.T, s *setup, c *countingSQS, mod func(*Options)) (heldAtGate int, st Stats) {
	return gatedRunAfter(t, s, c, 0, mod)
}

// gatedRunAfter is gatedRun with the gate closed for at least d.
func gatedRunAfter(t *testing.T, s *setup, c *countingSQS, d time.Duration, mod func(*Options)) (heldAtGate int, st Stats) {
	t.Helper()
	open := make(chan struct{})
	m := s.newMoverOn(t, c, func(o *Options) {
		o.Max, o.Backlog = len(s.bodies), len(s.bodies)
		o.Gate = func() error { <-open; return nil }
		mod(o)
	})
	type result struct {
		st  Stats
		err error
	}
	done := make(chan result)
	go func() {
		st, err := m.Run(context.Background())
		done <- result{st, err}
	}()
	time.Sleep(d)
	synctest.Wait()
	_, heldAtGate, _ = c.counts()
	if c.fakeSQS.sends != 0 {
		t.Fatalf("%d sends before the gate opened", c.fakeSQS.sends)
	}
	close(open)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	return heldAtGate, r.st
}

// While the gate is closed each worker receives the batch it will send
// first and the next (so the first sends go at once when it opens), and
// no more: 4 workers hold 80 of 200 messages, and all 200 move after.
func TestGateHoldsTwoBatchesAWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSetup(t, 200)
		c := &countingSQS{fakeSQS: s.fake}
		held, st := gatedRun(t, s, c, func(o *Options) { o.Workers = 4 })
		if held != 80 {
			t.Fatalf("held %d messages at the closed gate, want 2 batches for each of 4 workers (80)", held)
		}
		if st.Moved != 200 {
			t.Fatalf("moved %d, want 200", st.Moved)
		}
	})
}

// What is held at a closed gate stays in memory's bounds: once the
// batches held weigh gateBytes, the workers receive no more until it
// opens (here the first batch of 2 MiB bodies weighs 20 MiB, and the
// worker does not take its second).
func TestGateHoldsNoMoreThanGateBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSetup(t, 0)
		big := strings.Repeat("x", 2<<20)
		for range 60 {
			s.bodies = append(s.bodies, big)
			s.fake.put(dlqURL, big, nil)
		}
		c := &countingSQS{fakeSQS: s.fake}
		held, st := gatedRun(t, s, c, func(o *Options) { o.Workers = 1 })
		if held != 10 {
			t.Fatalf("held %d messages of 2 MiB at the closed gate, want the first batch (10)", held)
		}
		if st.Moved != 60 {
			t.Fatalf("moved %d, want 60", st.Moved)
		}
	})
}

// At a --rate a closed gate holds no more than the rate sends in half
// the visibility timeout (at 1 msg/s and 30 s: 15, so one batch), and
// none is received after half the visibility timeout has passed (a first
// receive that took 1.5 s of 2 s leaves the worker's second batch).
func TestGateHoldsWhatIsSentBeforeTheVisibilityEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSetup(t, 30)
		c := &countingSQS{fakeSQS: s.fake}
		held, st := gatedRun(t, s, c, func(o *Options) { o.Workers, o.Rate = 1, 1 })
		if held != 10 {
			t.Fatalf("held %d at the closed gate at 1 msg/s, want one batch (10)", held)
		}
		if st.Moved != 30 {
			t.Fatalf("moved %d, want 30", st.Moved)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		s := newSetup(t, 30)
		c := &countingSQS{fakeSQS: s.fake, firstReceive: 1500 * time.Millisecond}
		held, st := gatedRunAfter(t, s, c, 1900*time.Millisecond, func(o *Options) { o.Workers, o.Visibility = 1, 2 })
		if held != 10 {
			t.Fatalf("held %d at the closed gate after 1.5 s of a 2 s visibility, want one batch (10)", held)
		}
		if st.Moved != 30 {
			t.Fatalf("moved %d, want 30", st.Moved)
		}
	})
}

// Once every message of the backlog is received and none is owed, a
// worker waits for the batches still in hand (holdOn) instead of
// receiving again (an empty answer, then a look at the DLQ's depth, at
// the end of a move with nothing else to do); with none in hand the run
// is over.
func TestNoReceiveOnceTheBacklogIsInHand(t *testing.T) {
	s := newSetup(t, 0)
	m := s.newMoverOn(t, s.fake, func(o *Options) { o.Workers, o.Max, o.Backlog = 4, 100, 20 })
	ctx := context.Background()
	if n, wait := m.claim(ctx); n != batchSize || wait == 0 {
		t.Fatalf("claim before anything was received: %d, %d; want a long poll of %d", n, wait, batchSize)
	}
	for i := range 20 {
		id := fmt.Sprintf("m-%d", i)
		m.t.See(id)
		if i >= 10 {
			m.t.Hold(id, "rh-"+id)
		}
	}
	if n, _ := m.claim(ctx); n != holdOn {
		t.Fatalf("claim with the backlog received, a batch in hand: %d, want holdOn (%d)", n, holdOn)
	}
	for i := 10; i < 20; i++ {
		m.t.LetGo(fmt.Sprintf("m-%d", i))
	}
	if n, _ := m.claim(ctx); n != 0 {
		t.Fatalf("claim with the backlog received and done: %d, want 0 (the run is over)", n)
	}
}

// Past half the visibility timeout a closed gate lets a worker receive
// only while nothing is held: a batch held asks the gate, which then
// opens (or fails) for every worker; with none, a worker that waited
// would wait for ever.
func TestGateWaitsOnlyWithABatchHeld(t *testing.T) {
	s := newSetup(t, 0)
	m := s.newMoverOn(t, s.fake, func(o *Options) {
		o.Workers, o.Visibility = 1, 2
		o.Gate = func() error { return nil }
	})
	m.started = time.Now().Add(-2 * time.Second)
	// Cancelled: a worker that would wait returns at once, not receiving.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if !m.awaitGate(ctx) {
		t.Fatal("nothing held past half the visibility timeout: the worker did not receive")
	}
	m.heldForGate(make([]types.Message, 3))
	if m.awaitGate(ctx) {
		t.Fatal("3 messages held past half the visibility timeout: the worker received more")
	}
}

// Near the end of the backlog a worker does not race the receives in
// flight, nor the batches received and not yet looked at, for its last
// messages: when they can hold all that is left unseen it waits for them
// (holdOn); when they cannot, it receives.
func TestNoReceiveWhileTheRestIsBeingReceived(t *testing.T) {
	s := newSetup(t, 0)
	m := s.newMoverOn(t, s.fake, func(o *Options) { o.Workers, o.Max, o.Backlog = 8, 100, 100 })
	ctx := context.Background()
	for i := range 70 {
		m.t.See(fmt.Sprintf("m-%d", i))
	}
	m.receiving, m.untriaged = 2, 5 // 25 of the 30 unseen may be coming
	if n, _ := m.claim(ctx); n <= 0 {
		t.Fatalf("claim with 30 unseen, 25 on their way: %d, want a receive", n)
	}
	// That receive counts: 35 of 30 may be coming.
	if n, _ := m.claim(ctx); n != holdOn {
		t.Fatalf("claim with 30 unseen, 3 receives in flight and 5 received: %d, want holdOn (%d)", n, holdOn)
	}
	changed := m.changes()
	m.endReceive(0)
	select {
	case <-changed:
	default:
		t.Fatal("a receive came back: the worker held for it was not woken")
	}
	if n, _ := m.claim(ctx); n <= 0 {
		t.Fatalf("claim with 30 unseen, 25 on their way after an empty answer: %d, want a receive", n)
	}
}
