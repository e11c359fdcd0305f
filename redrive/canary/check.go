// Package canary proves a redrive's first few messages before the rest
// move: none came back to the DLQ (by MessageId, and by the DLQ's count),
// and they left each destination queue (its depth, or CloudWatch on a
// live one). redrive builds a Check from its plan; the package imports
// neither redrive nor the mover.
package canary

import (
	"context"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Check is one canary's looks: the destinations and the DLQ's count read
// before it (Before), when its sends ended (Sent), and the judgement after
// its wait (Judge). redrive builds it from the plan; it never imports
// redrive.
type Check struct {
	SQS sqsapi.Client
	// CW makes the CloudWatch client that judges a live destination (nil:
	// none, each destination is judged by its depth).
	CW func(context.Context) (cwapi.MetricsAPI, error)
	// Warn and Info are the run's stderr lines.
	Warn, Info func(format string, a ...any)
	// DLQ is the queue the canary's returns land in: the DLQ, or from a
	// file the destination's own DLQ (nil: none to look in).
	DLQ *sqsapi.Queue
	// Dests are the destination queues (targets that are not queues have
	// no depth to read: only returns judge them).
	Dests []*sqsapi.Queue
	// PerSource tells that each destination got only its own share of the
	// canary (a shared DLQ's messages, each back to its source).
	PerSource bool
	// Wait is how long the consumer gets to fail the canary back (the
	// plan's CanaryWait, see Wait).
	Wait time.Duration
	// Now is the clock the metrics' minutes are read by (nil: time.Now):
	// a test's backfilled minutes stay where it put them when a minute
	// turns during the test.
	Now func() time.Time

	// cwClient reads the destinations' metrics; noCW: it failed.
	cwClient cwapi.MetricsAPI
	noCW     bool
	dests    []*canaryDest
	count    *dlqCount
	span     canarySpan
}

// Before reads each destination's depth and traffic and the DLQ's count,
// before the canary's first send.
func (ch *Check) Before(ctx context.Context) {
	ch.dests, ch.count = ch.canaryBefore(ctx), ch.countBefore(ctx)
	ch.span = canarySpan{start: ch.now()}
}

// Sent marks the end of the canary's sends: a live destination's metrics
// are judged from there.
func (ch *Check) Sent() { ch.span.sent = ch.now() }

func (ch *Check) now() time.Time {
	if ch.Now != nil {
		return ch.Now()
	}
	return time.Now()
}

// Judge waits for the consumer to fail the canary again and says what came
// back; then, nothing back, that the canary left its destinations
// (canaryLeft) and that the DLQ's count proves nothing came back
// (proveByCount): halt says which did not hold. taken is how many messages
// the canary took out of the DLQ.
func (ch *Check) Judge(ctx context.Context, s Sent) (res Result, halt string, err error) {
	res, err = returnsAfter(ctx, ch.SQS, ch.DLQ, s.IsReturn, s.Moved, ch.Wait)
	if err == nil && !res.Failed() && ctx.Err() == nil {
		var extra bool
		halt, extra, err = ch.canaryLeft(ctx, ch.dests, s, ch.span)
		if err == nil && extra && ctx.Err() == nil {
			// Consumers failing it slowly may have returned some since.
			res.Back, res.BySource, res.Peeked, err = returnedBy(ctx, ch.SQS, ch.DLQ, s.IsReturn)
		}
	}
	if err == nil && !res.Failed() && halt == "" && ctx.Err() == nil && ch.count != nil {
		halt, err = ch.proveByCount(ctx, ch.count, s, &res)
	}
	return res, halt, err
}

// proveByCount waits for the DLQ's count to be what it held before less
// what the canary took. When it is not, it peeks again: returns found
// fail the canary (res), a peek that saw every message and none of the
// canary's proves it; otherwise halt says it is not proven.
func (ch *Check) proveByCount(ctx context.Context, c *dlqCount, s Sent, res *Result) (halt string, err error) {
	taken := s.Taken
	ok, err := ch.settle(ctx, c, taken, canaryExtra(ch.Wait))
	if err != nil || ok || ctx.Err() != nil {
		return "", err
	}
	res.Back, res.BySource, res.Peeked, err = returnedBy(ctx, ch.SQS, c.q, s.IsReturn)
	if err != nil || res.Failed() {
		return "", err
	}
	if c.q.Depth.Total() > 0 && int64(res.Peeked) >= c.q.Depth.Total() {
		ch.Info("canary: %s holds %d, not the %d expected, but the peek saw every one of them and none is the canary's", c.q.Name, c.q.Depth.Total(), c.want(taken))
		return "", nil
	}
	return unprovenText(c, taken, res.Peeked), nil
}

// Sent is what the canary's sends did, from the mover's figures.
type Sent struct {
	// Moved is how many the canary moved; To, how many to each
	// destination queue (by URL) when PerSource.
	Moved int
	To    map[string]int
	// Taken is how many it took out of the DLQ: sent or resumed and
	// deleted (none with --keep or from a file).
	Taken int
	// IsReturn tells a DLQ message that is one of this journal's sends
	// come back (mover.IsReturn over the run's journal).
	IsReturn func(*sqsjson.Message) bool
}

// Result is what the canary showed: of the messages it moved, how
// many the destination's consumer failed back into the DLQ.
type Result struct {
	Moved int
	Back  int
	// BySource counts the returns by the queue they failed out of (their
	// DeadLetterQueueSourceArn; "" when unknown): a shared DLQ's canary
	// is judged per destination.
	BySource map[string]int
	// Peeked is how many distinct messages the last peek saw: the DLQ's
	// count is the proof unless it saw them all.
	Peeked int
}

// Failed tells that the canary came back: the fix is not the right one and
// the rest must stay in the DLQ.
func (r Result) Failed() bool { return r.Back > 0 }

// Reason says so, naming the DLQ and the next step.
func (r Result) Reason(dlq string) string {
	return fmt.Sprintf("canary: %d of %d came back to %s: the fix is not the right one — back to step 2 (mfdlq classify)", r.Back, r.Moved, dlq)
}

// returnsAfter waits for the destination's consumer to fail the canary
// again (wait: see Wait), then looks for its messages in the DLQ by the
// MessageIds the destination gave them (returnedBy). An interrupted wait
// returns what is known so far and no error: the caller sees ctx.Err().
func returnsAfter(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, isReturn func(*sqsjson.Message) bool, moved int, wait time.Duration) (Result, error) {
	res := Result{Moved: moved}
	var err error
	select {
	case <-ctx.Done():
		return res, nil
	case <-time.After(wait):
	}
	res.Back, res.BySource, res.Peeked, err = returnedBy(ctx, c, dlq, isReturn)
	return res, err
}

// Wait is how long the source's consumer needs to fail a message
// back to the DLQ: the destination's DelaySeconds before its first
// delivery, then every receive hides it for the visibility timeout, and
// the DLQ gets it after maxReceiveCount receives. A minute (after the
// delay) when the destination has no redrive policy to the DLQ (nothing
// can come back).
func Wait(dest *sqsapi.Queue, dlq *sqsapi.Queue) time.Duration {
	if !dest.DeadLettersTo(dlq) {
		return dest.Delay() + time.Minute
	}
	vis := dest.Visibility
	if vis <= 0 {
		vis = 30 * time.Second
	}
	return dest.Delay() + vis*time.Duration(max(dest.RedrivePolicy.MaxReceiveCount, 1)) + 10*time.Second
}

// returnedBy peeks at the DLQ (each message hidden for one second, never
// deleted) and counts the messages this journal sent somewhere — they came
// back, the consumer failed them again — by the queue they failed out of
// (DeadLetterQueueSourceArn, "" when the message has none), and how many
// distinct messages the peek saw. It sees at most PeekMax,
// the oldest first: on a deeper DLQ it misses a return behind the backlog
// (the DLQ's count decides, canary_count.go).
func returnedBy(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, isReturn func(*sqsjson.Message) bool) (int, map[string]int, int, error) {
	if err := sqsapi.Refresh(ctx, c, dlq); err != nil {
		return 0, nil, 0, fmt.Errorf("read %s: %w", dlq.Name, err)
	}
	n := int(min(dlq.Depth.Visible, PeekMax))
	if n == 0 {
		return 0, nil, 0, nil
	}
	res, err := sqsapi.Peek(ctx, c, dlq, sqsapi.PeekOptions{Max: n, Visibility: 1, Wait: 1})
	if err != nil {
		return 0, nil, 0, err
	}
	// Visible again at once, not after their second: a canary that stops
	// the redrive leaves the DLQ as it found it (issue 32).
	sqsapi.Release(context.WithoutCancel(ctx), c, dlq.URL, res.Handles)
	back, by := 0, map[string]int{}
	for _, m := range res.Messages {
		if isReturn(&m) {
			back++
			by[m.SourceARN()]++
		}
	}
	return back, by, len(res.Messages), nil
}

// PeekMax bounds the canary's peek (the plan says it): 200 receives of ten.
const PeekMax = 2000
