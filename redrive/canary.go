package redrive

import (
	"context"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// CanaryResult is what the canary showed: of the messages it moved, how
// many the destination's consumer failed back into the DLQ.
type CanaryResult struct {
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
func (r CanaryResult) Failed() bool { return r.Back > 0 }

// Reason says so, naming the DLQ and the next step.
func (r CanaryResult) Reason(dlq string) string {
	return fmt.Sprintf("canary: %d of %d came back to %s: the fix is not the right one — back to step 2 (mfdlq classify)", r.Back, r.Moved, dlq)
}

// CheckCanary waits for the destination's consumer to fail the canary
// again (wait: see CanaryWait), then looks for its messages in the DLQ by
// the MessageIds the destination gave them (Returned). An interrupted wait
// returns what is known so far and no error: the caller sees ctx.Err().
func CheckCanary(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, st *journal.State, moved int, wait time.Duration) (CanaryResult, error) {
	res := CanaryResult{Moved: moved}
	var err error
	select {
	case <-ctx.Done():
		return res, nil
	case <-time.After(wait):
	}
	res.Back, res.BySource, res.Peeked, err = returnedBy(ctx, c, dlq, st)
	return res, err
}

// CanaryWait is how long the source's consumer needs to fail a message
// back to the DLQ: every receive hides it for the visibility timeout, and
// the DLQ gets it after maxReceiveCount receives. A minute when the
// destination has no redrive policy to the DLQ (nothing can come back).
func CanaryWait(dest *sqsapi.Queue, dlq *sqsapi.Queue) time.Duration {
	if !dest.DeadLettersTo(dlq) {
		return time.Minute
	}
	vis := dest.Visibility
	if vis <= 0 {
		vis = 30 * time.Second
	}
	return vis*time.Duration(max(dest.RedrivePolicy.MaxReceiveCount, 1)) + 10*time.Second
}

// Returned peeks at the DLQ (each message hidden for one second, never
// deleted) and counts the messages this journal sent somewhere: they came
// back, the consumer failed them again.
func Returned(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, st *journal.State) (int, error) {
	back, _, _, err := returnedBy(ctx, c, dlq, st)
	return back, err
}

// returnedBy is Returned with the returns counted by the queue they failed
// out of (DeadLetterQueueSourceArn, "" when the message has none), and
// how many distinct messages the peek saw. It sees at most canaryPeekMax,
// the oldest first: on a deeper DLQ it misses a return behind the backlog
// (the DLQ's count decides, canary_count.go).
func returnedBy(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, st *journal.State) (int, map[string]int, int, error) {
	if err := sqsapi.Refresh(ctx, c, dlq); err != nil {
		return 0, nil, 0, fmt.Errorf("read %s: %w", dlq.Name, err)
	}
	n := int(min(dlq.Depth.Visible, canaryPeekMax))
	if n == 0 {
		return 0, nil, 0, nil
	}
	res, err := sqsapi.Peek(ctx, c, dlq, sqsapi.PeekOptions{Max: n, Visibility: 1, Wait: 1})
	if err != nil {
		return 0, nil, 0, err
	}
	// Visible again at once, not after their second: a canary that stops
	// the redrive leaves the DLQ as it found it (issue 32).
	releasePeek(ctx, c, dlq, res)
	back, by := 0, map[string]int{}
	for _, m := range res.Messages {
		if mover.IsReturn(st, &m) {
			back++
			by[m.SourceARN()]++
		}
	}
	return back, by, len(res.Messages), nil
}

// canaryPeekMax bounds the canary's peek: 200 receives of ten.
const canaryPeekMax = 2000

// releasePeek makes what a peek saw visible again at once (best effort: a
// miss is visible after the peek's own visibility timeout).
func releasePeek(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, res sqsapi.PeekResult) {
	sqsapi.Release(context.WithoutCancel(ctx), c, dlq.URL, res.Handles)
}
