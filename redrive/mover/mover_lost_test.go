package mover

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/mfdlq/mfdlq/redrive/retry"
)

// fastRetry is two attempts with no real backoff: a batch whose two
// answers are lost runs out of retries.
func fastRetry() *retry.Policy {
	return &retry.Policy{MaxAttempts: 2, Base: time.Millisecond, Cap: time.Millisecond, Budget: 1, BudgetFloor: 100}
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
}

// Messages of the backlog that stay hidden past the quiet wait (another
// consumer holds them) end the run, and the run says they are left: no
// silent success.
func TestBacklogLeftHiddenIsReported(t *testing.T) {
	t.Parallel()
	s := newSetup(t, 5)
	s.fake.mu.Lock()
	s.fake.queues[dlqURL][0].hiddenUntil = time.Now().Add(time.Minute)
	s.fake.mu.Unlock()
	st := s.run(t, func(o *Options) { o.Backlog, o.Workers, o.Visibility, o.Wait = 5, 1, 1, 1 })
	if st.Moved != 4 || st.Failed != 1 || !strings.Contains(st.LastError, "1 message of the backlog stayed hidden") {
		t.Fatalf("moved %d, failed %d (%q); want 4 moved and 1 reported left hidden", st.Moved, st.Failed, st.LastError)
	}
}

// The DLQ found drained while the last batch is still held (its messages
// are all the DLQ counts) is not the end: that batch's sends lose their
// answers, it is released, and the run takes it again.
func TestDrainedWhileLastBatchFailsIsTakenAgain(t *testing.T) {
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
}

// A batch sent and journaled whose delete runs out of retries stays in the
// DLQ, hidden for the visibility timeout: the run, which has seen its
// whole backlog, waits for it, deletes it, and no longer counts it
// pending.
func TestBatchWithFailedDeleteIsDeletedWhenItReappears(t *testing.T) {
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
}
