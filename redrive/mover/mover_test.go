package mover

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

const (
	dlqURL  = "https://sqs.local/1/orders-dlq"
	destURL = "https://sqs.local/1/orders"
)

type setup struct {
	fake    *fakeSQS
	journal string
	bodies  []string
}

func newSetup(t *testing.T, n int) *setup {
	s := &setup{fake: newFake(), journal: filepath.Join(t.TempDir(), "redrive-journal.jsonl")}
	for i := range n {
		b := fmt.Sprintf(`{"order_id":"o-%02d","total":%d}`, i, i)
		s.bodies = append(s.bodies, b)
		s.fake.put(dlqURL, b, map[string]types.MessageAttributeValue{"ErrorCode": {DataType: aws.String("String"), StringValue: aws.String("E")}})
	}
	return s
}

func (s *setup) run(t *testing.T, mod func(*Options)) Stats {
	t.Helper()
	return runThrough(t, s, s.fake, mod)
}

// The tests of waits run in a synctest bubble (testing/synctest): there
// the wall clock that the mover (receipts.System) and the fake SQS read
// is fake, and moves only when every goroutine of the run waits, so a
// visibility timeout or a quiet wait passes in no wall time and in the
// order it would on the wall clock. (receipts.Fake, advanced by hand, fits
// one reader; a run of concurrent workers needs the bubble's rule for
// when time may move.)

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func TestMoveJournalsSentBeforeDelete(t *testing.T) {
	s := newSetup(t, 25)
	s.fake.beforeDelete = func(in *sqs.DeleteMessageBatchInput) {
		// Every message being deleted must already be journaled 'sent'.
		entries, _ := journal.ReadEntries(s.journal)
		st := stateOf(t, 0, entries...)
		s.fake.mu.Lock()
		defer s.fake.mu.Unlock()
		for _, e := range in.Entries {
			for _, m := range s.fake.queues[dlqURL] {
				if m.receipt == *e.ReceiptHandle && st.Of(m.id, destURL).Op != journal.OpSent {
					t.Errorf("delete of %s before its 'sent' was journaled", m.id)
				}
			}
		}
	}
	st := s.run(t, nil)
	if st.Moved != 25 || st.Failed != 0 || st.Skipped != 0 {
		t.Fatalf("stats %+v", st)
	}
	if diff := cmp.Diff(sorted(s.bodies), sorted(s.fake.bodies(destURL))); diff != "" {
		t.Fatalf("destination (-want +got):\n%s", diff)
	}
	if n := len(s.fake.bodies(dlqURL)); n != 0 {
		t.Fatalf("DLQ holds %d", n)
	}
	entries, _ := journal.ReadEntries(s.journal)
	ops := map[string]int{}
	for _, e := range entries {
		ops[e.Op]++
		if e.Op == journal.OpSent && (len(e.BodySHA256) != 64 || e.DestMessageID == "" || e.DestQueue != destURL) {
			t.Errorf("sent entry incomplete: %+v", e)
		}
	}
	if ops[journal.OpSent] != 25 || ops[journal.OpDeleted] != 25 {
		t.Fatalf("journal ops %v", ops)
	}
}

func TestResumeDeletesWithoutResending(t *testing.T) {
	s := newSetup(t, 12)
	// An earlier run sent the first 4 and was killed before deleting them.
	var pre []string
	for _, m := range s.fake.queues[dlqURL][:4] {
		pre = append(pre, fmt.Sprintf(`{"time":"2025-03-02T03:00:00Z","run":"old","op":"sent","dlq_message_id":%q,"dest_queue":%q,"dest_message_id":"d-%s"}`, m.id, destURL, m.id))
	}
	os.WriteFile(s.journal, []byte(strings.Join(pre, "\n")+"\n{\"op\":\"sent\",\"dlq_mess"), 0o600) // a torn last line
	st := s.run(t, nil)
	if st.Moved != 8 || st.Resumed != 4 {
		t.Fatalf("stats %+v", st)
	}
	if got := len(s.fake.bodies(destURL)); got != 8 {
		t.Fatalf("destination got %d sends, want 8 (4 were sent before)", got)
	}
	if n := len(s.fake.bodies(dlqURL)); n != 0 {
		t.Fatalf("DLQ holds %d", n)
	}
}

// A delete SQS accepted without deleting (a receipt handle that was no
// longer the latest) leaves the message in the DLQ; the next run deletes it
// and never sends it again.
func TestStaleDeleteIsRedoneNotResent(t *testing.T) {
	// In a bubble: its clock moves only when every goroutine of the run
	// waits, so the timeouts below pass in no wall time (see bubble).
	synctest.Test(t, func(t *testing.T) {
		s := newSetup(t, 10)
		s.fake.staleDeletes = 3
		// Backlog 10: the first run ends once it has dealt with the ten, rather
		// than wait for the three to reappear and delete them itself.
		if st := s.run(t, func(o *Options) { o.Visibility = 1; o.Backlog = 10 }); st.Moved != 10 {
			t.Fatalf("first run %+v", st)
		}
		time.Sleep(1100 * time.Millisecond)
		st := s.run(t, func(o *Options) { o.Visibility = 1; o.Backlog = 3; o.Max = 3 })
		if st.Moved != 0 || st.Resumed != 3 {
			t.Fatalf("second run %+v", st)
		}
		if got := len(s.fake.bodies(destURL)); got != 10 {
			t.Fatalf("destination got %d, want 10: nothing resent", got)
		}
		if n := len(s.fake.bodies(dlqURL)); n != 0 {
			t.Fatalf("DLQ still holds %d", n)
		}
	})
}

func TestSelectionSkipsAndReleases(t *testing.T) {
	s := newSetup(t, 20)
	sel, err := filterFunc(".Body.total >= 15")
	if err != nil {
		t.Fatal(err)
	}
	st := s.run(t, func(o *Options) { o.Select = sel })
	if st.Moved != 5 || st.Skipped != 15 {
		t.Fatalf("stats %+v", st)
	}
	d, _ := s.fake.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(dlqURL)})
	if d.Attributes["ApproximateNumberOfMessages"] != "15" {
		t.Fatalf("DLQ depth %v: skipped messages must be visible again at once", d.Attributes)
	}
}

func TestBoundAndKeep(t *testing.T) {
	s := newSetup(t, 30)
	st := s.run(t, func(o *Options) { o.Max = 7; o.Keep = true })
	if st.Moved != 7 || len(s.fake.bodies(destURL)) != 7 || len(s.fake.bodies(dlqURL)) != 30 {
		t.Fatalf("stats %+v, dest %d, dlq %d", st, len(s.fake.bodies(destURL)), len(s.fake.bodies(dlqURL)))
	}
}

func TestSenderFaultFailsOneMessage(t *testing.T) {
	s := newSetup(t, 10)
	s.fake.sendFault = func(body string) *types.BatchResultErrorEntry {
		if strings.Contains(body, "o-03") {
			return &types.BatchResultErrorEntry{SenderFault: true, Code: aws.String("InvalidParameterValue"), Message: aws.String("bad attribute")}
		}
		return nil
	}
	st := s.run(t, nil)
	if st.Moved != 9 || st.Failed != 1 {
		t.Fatalf("stats %+v", st)
	}
	if got := s.fake.bodies(dlqURL); len(got) != 1 || !strings.Contains(got[0], "o-03") {
		t.Fatalf("DLQ holds %v, want the failed one", got)
	}
	entries, _ := journal.ReadEntries(s.journal)
	if e := entries[len(entries)-1]; !strings.Contains(fmt.Sprint(entries), "InvalidParameterValue: bad attribute") {
		t.Fatalf("no failed entry with the reason; last %+v", e)
	}
}

func TestRateLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSetup(t, 30)
		start := time.Now()
		st := s.run(t, func(o *Options) { o.Rate = 100; o.Workers = 1 })
		// 30 messages at 100/s from an empty bucket: 0.3 s at least.
		if el := time.Since(start); st.Moved != 30 || el < 290*time.Millisecond {
			t.Fatalf("moved %d in %s", st.Moved, el)
		}
	})
}

// The rate's clock starts at RateFrom: a second spent before the move
// (the lease's read-back) fills the bucket with one second's messages, at
// most one burst, never more; a RateFrom to come counts from now.
func TestRateClockStartsAtRateFrom(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "j"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	jw := journal.NewWriter(f)
	defer jw.Close()
	now := time.Now()
	for _, tt := range []struct {
		from     time.Time
		min, max float64
	}{
		{time.Time{}, 0, 0.5},
		{now.Add(-300 * time.Millisecond), 2.9, 4},
		{now.Add(-time.Second), 9.9, 10},
		{now.Add(-time.Hour), 9.9, 10}, // the burst (10 at 10 msg/s) caps it
		{now.Add(time.Hour), 0, 0.5},
	} {
		m, err := NewMover(newFake(), Options{Source: &sqsapi.Queue{URL: dlqURL}, Dest: &sqsapi.Queue{URL: destURL}, Journal: jw, State: stateOf(t, 0), Rate: 10, RateFrom: tt.from})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.limiter.TokensAt(now); got < tt.min || got > tt.max {
			t.Errorf("RateFrom %s before: %.2f tokens, want %.1f–%.1f", now.Sub(tt.from), got, tt.min, tt.max)
		}
	}
}

// The achieved rate counts from RateStart: the lease request, but no
// earlier than one bucket before the move (at 10 msg/s the whole second, at
// 1,000 a tenth of it), so a wait the bucket could not hold does not lower it.
func TestRateStart(t *testing.T) {
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		rate float64
		from time.Time
		want time.Time
	}{
		{10, start.Add(-time.Second), start.Add(-time.Second)},
		{10, start.Add(-300 * time.Millisecond), start.Add(-300 * time.Millisecond)},
		{10, start.Add(-time.Hour), start.Add(-time.Second)},
		{1000, start.Add(-time.Second), start.Add(-100 * time.Millisecond)},
		{0, start.Add(-time.Second), start},
		{10, time.Time{}, start},
		{10, start.Add(time.Second), start},
	} {
		if got := RateStart(tt.rate, tt.from, start); !got.Equal(tt.want) {
			t.Errorf("rate %g, from %s before: %s before, want %s", tt.rate, start.Sub(tt.from), start.Sub(got), start.Sub(tt.want))
		}
	}
}

func TestFIFOEntryKeepsGroupAndDedup(t *testing.T) {
	e := sendEntry(&sqsapi.Queue{FIFO: true}, "0", &sqsjson.Message{MessageId: "abc", Body: "b", Attributes: map[string]string{"MessageGroupId": "g1"}})
	if aws.ToString(e.MessageGroupId) != "g1" || aws.ToString(e.MessageDeduplicationId) != "mfdlq-abc" {
		t.Fatalf("%+v", e)
	}
}

// A standard queue takes a MessageGroupId (a fair queue's tenant, 2025):
// it is sent back, without a deduplication id; none is invented.
func TestStandardEntryKeepsFairQueueGroup(t *testing.T) {
	e := sendEntry(&sqsapi.Queue{}, "0", &sqsjson.Message{MessageId: "abc", Body: "b", Attributes: map[string]string{"MessageGroupId": "acme"}})
	if aws.ToString(e.MessageGroupId) != "acme" || e.MessageDeduplicationId != nil {
		t.Fatalf("%+v", e)
	}
	if e := sendEntry(&sqsapi.Queue{}, "0", &sqsjson.Message{MessageId: "abc", Body: "b"}); e.MessageGroupId != nil {
		t.Fatalf("no group: %+v", e)
	}
}

// A message hidden by someone else (a killed run, a receive whose answer
// was lost) is waited for, and the wait is reported, not silent.
func TestWaitForHiddenIsReported(t *testing.T) {
	// In a bubble: its clock moves only when every goroutine of the run
	// waits, so the timeouts below pass in no wall time (see bubble).
	synctest.Test(t, func(t *testing.T) {
		s := newSetup(t, 5)
		s.fake.mu.Lock()
		s.fake.queues[dlqURL][0].hiddenUntil = time.Now().Add(1500 * time.Millisecond)
		s.fake.mu.Unlock()
		var mu sync.Mutex
		maxHidden := 0
		st := s.run(t, func(o *Options) {
			o.Backlog, o.Visibility = 5, 2
			o.OnBatch = func(st Stats) {
				mu.Lock()
				maxHidden = max(maxHidden, st.Hidden)
				mu.Unlock()
			}
		})
		if st.Moved != 5 || st.Hidden != 0 {
			t.Fatalf("run %+v: want all 5 moved and nothing hidden at the end", st)
		}
		if maxHidden != 1 {
			t.Fatalf("progress reported at most %d hidden, want 1", maxHidden)
		}
	})
}

// No idle tail: when the backlog read at the start counted more than the
// DLQ holds, the last long polls find an empty queue; once the DLQ has
// nothing left for the run they are cancelled, not waited out, and since
// the run let nothing go, the cancelled polls (which SQS finishes on its
// side) take nothing.
func TestIdleLongPollsAreCancelled(t *testing.T) {
	s := newSetup(t, 25)
	s.fake.longPoll = true
	st := s.run(t, func(o *Options) { o.Backlog, o.Wait, o.Workers = 1000, 3, 0 })
	if st.Moved != 25 {
		t.Fatalf("moved %d, want 25", st.Moved)
	}
	s.fake.mu.Lock()
	defer s.fake.mu.Unlock()
	// No poll may wait out its 3 s on the drained queue (without the
	// cancellation every idle one does) and none may take a message. How
	// many were cancelled depends on the scheduler: on a loaded machine the
	// workers can finish the backlog before any of them polls idle.
	t.Logf("long polls: %d cancelled", s.fake.cancelled)
	if s.fake.fullWaits != 0 || s.fake.ghosted != 0 {
		t.Fatalf("long polls: %d waited in full, %d messages taken by cancelled polls; want 0, 0",
			s.fake.fullWaits, s.fake.ghosted)
	}
}

// A run that made messages visible again (here: not selected) never
// cancels a long poll: a cancelled poll would take them and hide them for
// the visibility timeout.
func TestLongPollsAreNotCancelledWhenMessagesWereLetGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSetup(t, 25)
		s.fake.longPoll = true
		st := s.run(t, func(o *Options) {
			o.Backlog, o.Wait, o.Workers = 1000, 1, 0
			o.Select = func(m *sqsjson.Message) (bool, error) { return !strings.Contains(m.Body, "o-0"), nil }
		})
		if st.Moved != 15 || st.Skipped != 10 {
			t.Fatalf("moved %d, skipped %d; want 15, 10", st.Moved, st.Skipped)
		}
		s.fake.mu.Lock()
		defer s.fake.mu.Unlock()
		if s.fake.cancelled != 0 || s.fake.ghosted != 0 {
			t.Fatalf("%d long polls cancelled, %d messages taken by them; want 0, 0", s.fake.cancelled, s.fake.ghosted)
		}
		for _, m := range s.fake.queues[dlqURL] {
			if time.Now().Before(m.hiddenUntil) {
				t.Fatalf("skipped message %s still hidden at the end", m.body)
			}
		}
	})
}
