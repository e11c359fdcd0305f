package redrive

import (
	"context"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/redrive/journal"
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
	res.Back, res.BySource, err = returnedBy(ctx, c, dlq, st)
	return res, err
}
