package redrive

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Refusal is a guardrail that stops a redrive unless --force.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Guardrails reads the incident and returns why a redrive should not run
// now, or nil: the latest classification says poison and no fix is
// recorded after it (fixed is the --fixed text about to be recorded), or
// the latest contain says the problem is still alive.
func Guardrails(events []incident.Event, fixed string) *Refusal {
	var classify, contain, fix *incident.Event
	for i := range events {
		switch events[i].Step {
		case "classify":
			classify, fix = &events[i], nil
		case "contain":
			contain = &events[i]
		case "fix":
			fix = &events[i]
		}
	}
	if classify != nil && classify.Verdict == "poison" && fix == nil && fixed == "" {
		return &Refusal{Reason: "the latest classify says poison and no fix is recorded: moving them back fails them again; fix the consumer and pass --fixed \"what changed\", or --force"}
	}
	if contain != nil && contain.Verdict == "alive" {
		return &Refusal{Reason: "the latest contain says the problem is still alive: new failures would land on top of the moved messages; stop it first (mfdlq contain), or pass --force"}
	}
	return nil
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
func Returned(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, st *State) (int, error) {
	if err := sqsapi.Refresh(ctx, c, dlq); err != nil {
		return 0, fmt.Errorf("read %s: %w", dlq.Name, err)
	}
	n := int(min(dlq.Depth.Visible, 2000))
	if n == 0 {
		return 0, nil
	}
	res, err := sqsapi.Peek(ctx, c, dlq, sqsapi.PeekOptions{Max: n, Visibility: 1, Wait: 1})
	if err != nil {
		return 0, err
	}
	back := 0
	for _, m := range res.Messages {
		if st.IsReturned(m.MessageId) || st.PayloadReturned(&m) {
			back++
		}
	}
	return back, nil
}

// NewRunID names one run in the journal.
func NewRunID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}
