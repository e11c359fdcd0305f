package redrive

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// LeaseLostError is the cause of a run stopped because another run took
// over its lease on the DLQ.
type LeaseLostError struct{ By lease.Holder }

func (e *LeaseLostError) Error() string { return "lease taken over by " + e.By.Describe() }

// CheckLease refuses early, before the plan and the question, when another
// live redrive holds the DLQ (a read only: nothing changes): a *lease.HeldError,
// unless Req.TakeOver, which is warned. What goes wrong reading the lease
// is left to Run, after the question.
func CheckLease(ctx context.Context, env *Env, p *Plan) error {
	dlq := p.Source.Queue
	h, ok, err := lease.CurrentHolder(ctx, env.SQS, dlq.URL)
	if err != nil || !ok || !lease.Live(h, env.Now()) {
		return nil
	}
	if !p.Req.TakeOver {
		return &lease.HeldError{Holder: h}
	}
	env.Warn("--take-over: %s is held by %s: take it over only if that run died", dlq.Name, untrusted.Shorten(untrusted.Terminal(h.Describe()), 300))
	return nil
}

// holdLease takes the DLQ's lease for run and keeps it while ctx lives.
// The returned context is cancelled, with a *LeaseLostError as its cause,
// if another run takes the lease over; release gives it back. Without
// permission to tag the DLQ the run goes on without a lease, warned. A
// move from a file holds none: there is no DLQ, and the journal keys on
// the file's MessageIds.
func holdLease(ctx context.Context, env *Env, p *Plan, run string) (context.Context, func(), error) {
	none := func() {}
	dlq := p.Source.Queue
	if p.Source.File != nil {
		return ctx, none, nil
	}
	if p.Req.TakeOver {
		if h, ok, err := lease.CurrentHolder(ctx, env.SQS, dlq.URL); err == nil && ok && lease.Live(h, env.Now()) {
			q := fmt.Sprintf("Take over %s from %s? Only if that run died", dlq.Name, untrusted.Shorten(untrusted.Terminal(h.Describe()), 300))
			if err := env.Confirm(q); err != nil {
				return ctx, none, err
			}
		}
	}
	me := lease.Me(env.Operator, run, env.Now())
	l, err := lease.Acquire(ctx, env.SQS, dlq.URL, me, p.Req.TakeOver, env.Now)
	var held *lease.HeldError
	switch {
	case errors.As(err, &held):
		return ctx, none, err
	case errors.Is(err, lease.ErrNoTagging):
		env.Warn("no lease on %s: %v; a second operator's redrive of it would not be stopped (docs/iam.md: sqs:TagQueue, sqs:UntagQueue, sqs:ListQueueTags)", dlq.Name, err)
		return ctx, none, nil
	case err != nil:
		return ctx, none, fmt.Errorf("take the lease on %s: %w", dlq.Name, err)
	}
	env.Info("lease: %s is held by this run (%s) until it ends", dlq.Name, me.Run)
	ctx, cancel := context.WithCancelCause(ctx)
	warned := false
	l.Keep(func(by lease.Holder) { cancel(&LeaseLostError{By: by}) }, func(err error) {
		if !warned {
			warned = true
			env.Warn("lease on %s not renewed: %v", dlq.Name, err)
		}
	})
	release := func() {
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer rcancel()
		if err := l.Release(rctx); err != nil && !sqsapi.IsQueueMissing(err) {
			env.Warn("lease on %s not removed (%v): it expires by itself within %s", dlq.Name, err, lease.TTL)
		}
		cancel(nil)
	}
	return ctx, release, nil
}

// leaseLost is why ctx was cancelled when another run took the lease over.
func leaseLost(ctx context.Context) *LeaseLostError {
	var lost *LeaseLostError
	if errors.As(context.Cause(ctx), &lost) {
		return lost
	}
	return nil
}
