package mover

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/redrive/retry"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// fastRetry is two attempts with no real backoff: a batch whose two
// answers are lost runs out of retries.
func fastRetry() *retry.Policy {
	return &retry.Policy{MaxAttempts: 2, Base: time.Millisecond, Cap: time.Millisecond, Budget: 1, BudgetFloor: 100}
}

// depthOf is how many messages url holds visible and hidden.
func (f *fakeSQS) depthOf(url string) (visible, hidden int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.queues[url] {
		if time.Now().Before(m.hiddenUntil) {
			hidden++
		} else {
			visible++
		}
	}
	return visible, hidden
}

// leftIn is how many messages url still holds, visible or hidden.
func (f *fakeSQS) leftIn(url string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queues[url])
}

// A batch whose two sends both lose their answers (sent, not journaled)
// is released and deferred: the run, which has seen its whole backlog by
// then, takes it again and finishes it rather than ending with it in the
// DLQ.
func TestBatchWithLostSendsIsTakenAgain(t *testing.T) {
	s := newSetup(t, 10)
	lost := 0
	s.fake.loseSend = func() bool { lost++; return lost <= 2 }
	st := s.run(t, func(o *Options) { o.Backlog, o.Workers, o.Retry = 10, 1, fastRetry() })
	if left := s.fake.leftIn(dlqURL); st.Moved != 10 || st.Failed != 0 || left != 0 {
		t.Fatalf("moved %d, failed %d, %d left in the DLQ; want 10, 0, 0 (%+v)", st.Moved, st.Failed, left, st)
	}
	if got := len(s.fake.bodies(destURL)); got != 30 {
		t.Fatalf("%d in the destination, want 30: the two lost sends and the one that counted", got)
	}
}

// A batch hidden by receives whose answers are lost, again each time it
// reappears, for longer than the quiet wait counted from the last new
// message (visibility 1 + 2 × wait 1 + 5 = 8 s): the run waits, since each
// lost receive may have hidden it, and moves it once a receive gets through.
func TestBatchHiddenByLostReceivesIsWaitedFor(t *testing.T) {
	t.Parallel()
	// In a bubble: its clock moves only when every goroutine of the run
	// waits, so the timeouts below pass in no wall time (see bubble).
	synctest.Test(t, func(t *testing.T) {
		s := newSetup(t, 20)
		start := time.Now()
		var first string
		var mu sync.Mutex
		s.fake.loseReceive = func(out *sqs.ReceiveMessageOutput) bool {
			mu.Lock()
			defer mu.Unlock()
			if first == "" {
				first = *out.Messages[0].MessageId
			}
			return *out.Messages[0].MessageId == first && time.Since(start) < 8500*time.Millisecond
		}
		st := s.run(t, func(o *Options) { o.Backlog, o.Workers, o.Visibility, o.Wait = 20, 1, 1, 1 })
		if left := s.fake.leftIn(dlqURL); st.Moved != 20 || st.Failed != 0 || left != 0 {
			t.Fatalf("moved %d, failed %d, %d left in the DLQ; want 20, 0, 0 (%+v)", st.Moved, st.Failed, left, st)
		}
	})
}

// Messages of the backlog that stay hidden past the quiet wait (another
// consumer holds them) end the run, and the run says they are left: no
// silent success.
func TestBacklogLeftHiddenIsReported(t *testing.T) {
	t.Parallel()
	// In a bubble: its clock moves only when every goroutine of the run
	// waits, so the timeouts below pass in no wall time (see bubble).
	synctest.Test(t, func(t *testing.T) {
		s := newSetup(t, 5)
		s.fake.mu.Lock()
		s.fake.queues[dlqURL][0].hiddenUntil = time.Now().Add(time.Minute)
		s.fake.mu.Unlock()
		st := s.run(t, func(o *Options) { o.Backlog, o.Workers, o.Visibility, o.Wait = 5, 1, 1, 1 })
		if st.Moved != 4 || st.Failed != 1 || !strings.Contains(st.LastError, "1 message of the backlog stayed hidden") {
			t.Fatalf("moved %d, failed %d (%q); want 4 moved and 1 reported left hidden", st.Moved, st.Failed, st.LastError)
		}
	})
}

// The DLQ found drained while the last batch is still held (its messages
// are all the DLQ counts) is not the end: that batch's sends lose their
// answers, it is released, and the run takes it again.
func TestDrainedWhileLastBatchFailsIsTakenAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSetup(t, 10)
		lost := 0
		s.fake.loseSend = func() bool {
			lost++
			if lost > 2 {
				return false
			}
			time.Sleep(300 * time.Millisecond) // the other worker finds the DLQ drained meanwhile
			return true
		}
		st := s.run(t, func(o *Options) { o.Backlog, o.Workers, o.Retry = 1000, 2, fastRetry() })
		if left := s.fake.leftIn(dlqURL); st.Moved != 10 || st.Failed != 0 || left != 0 {
			t.Fatalf("moved %d, failed %d, %d left in the DLQ; want 10, 0, 0 (%+v)", st.Moved, st.Failed, left, st)
		}
	})
}

// A batch sent and journaled whose delete runs out of retries stays in the
// DLQ, hidden for the visibility timeout: the run, which has seen its
// whole backlog, waits for it, deletes it, and no longer counts it
// pending.
func TestBatchWithFailedDeleteIsDeletedWhenItReappears(t *testing.T) {
	// In a bubble: its clock moves only when every goroutine of the run
	// waits, so the timeouts below pass in no wall time (see bubble).
	synctest.Test(t, func(t *testing.T) {
		s := newSetup(t, 10)
		failed := 0
		s.fake.failDelete = func() bool { failed++; return failed <= 2 }
		st := s.run(t, func(o *Options) { o.Backlog, o.Workers, o.Visibility, o.Retry = 10, 1, 1, fastRetry() })
		if left := s.fake.leftIn(dlqURL); st.Moved != 10 || st.PendingDelete != 0 || left != 0 {
			t.Fatalf("moved %d, %d pending delete, %d left in the DLQ; want 10, 0, 0 (%+v)", st.Moved, st.PendingDelete, left, st)
		}
		if got := len(s.fake.bodies(destURL)); got != 10 {
			t.Fatalf("%d in the destination, want 10: a journaled message is never sent again", got)
		}
	})
}

// A message the run parked and then lost to a receive whose answer was
// lost (hidden again with a receipt handle the run never saw) cannot be
// released at the end: the run waits until that receive's timeout ends,
// says how many and until when, and returns with them visible — not at
// once with them hidden, as an exit 0 that a verify right after would
// contradict. Ctrl-C stops the wait and says they stay hidden.
func TestEndWaitsForMessagesALostReceiveHid(t *testing.T) {
	t.Parallel()
	// In a bubble: its clock moves only when every goroutine of the run
	// waits, so the timeouts below pass in no wall time (see bubble).
	synctest.Test(t, func(t *testing.T) {
		for _, interrupted := range []bool{false, true} {
			s := newSetup(t, 3)
			f, err := os.OpenFile(s.journal, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			jw := journal.NewWriter(f) // closed before the bubble ends: its syncer is a goroutine of it
			defer jw.Close()
			m, err := NewMover(s.fake, Options{Source: &sqsapi.Queue{Name: "orders-dlq", URL: dlqURL}, Dest: &sqsapi.Queue{Name: "orders", URL: destURL},
				Workers: 1, Max: 10, Backlog: 10, RunID: "test", Wait: 1, Visibility: 1, Retry: fastRetry(),
				Journal: jw, State: stateOf(t, 0)})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			first, _ := s.fake.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlqURL), MaxNumberOfMessages: 10, VisibilityTimeout: 1})
			for _, msg := range first.Messages {
				m.t.Park(*msg.MessageId, *msg.ReceiptHandle)
			}
			time.Sleep(1100 * time.Millisecond) // visible again; then the lost receive:
			lostAt := time.Now()
			if again, _ := s.fake.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlqURL), MaxNumberOfMessages: 10, VisibilityTimeout: 1}); len(again.Messages) != 3 {
				t.Fatalf("the lost receive took %d, want 3", len(again.Messages))
			}
			m.lostReceive(lostAt, errLost)
			if interrupted {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				cancel()
			}
			m.awaitHidden(ctx, m.unpark())
			st := m.Stats()
			vis, hid := s.fake.depthOf(dlqURL)
			switch {
			case st.Rehidden != 3 || st.RehiddenUntil.Before(lostAt.Add(time.Second)):
				t.Fatalf("interrupted %v: rehidden %d until %s (lost at %s)", interrupted, st.Rehidden, st.RehiddenUntil, lostAt)
			case interrupted && (!st.RehiddenLeft || hid != 3):
				t.Fatalf("interrupted: left %v, %d visible %d hidden; want it said and the 3 still hidden", st.RehiddenLeft, vis, hid)
			case !interrupted && (st.RehiddenLeft || vis != 3 || hid != 0 || st.Hidden != 0):
				t.Fatalf("%d visible, %d hidden, hidden figure %d, left %v; want the 3 visible when the run ends", vis, hid, st.Hidden, st.RehiddenLeft)
			}
		}
	})
}
