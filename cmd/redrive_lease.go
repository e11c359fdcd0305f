package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// errLeaseLost is the cause of a run stopped because another run took
// over its lease on the DLQ.
type errLeaseLost struct{ by redrive.Holder }

func (e *errLeaseLost) Error() string { return "lease taken over by " + e.by.Describe() }

// checkLease refuses early, before the plan and the question, when another
// live redrive holds the DLQ (a read only: nothing changes).
func (o *redriveOptions) checkLease(ctx context.Context, c sqsapi.Client, p *redrivePlan) error {
	h, ok, err := redrive.CurrentHolder(ctx, c, p.dlq.URL)
	if err != nil || !ok || !redrive.Live(h, o.deps.Now()) {
		return nil // Acquire says what went wrong, after the question
	}
	if !o.TakeOver {
		return heldError(p.dlq, h, false)
	}
	o.deps.warnf("--take-over: %s is held by %s: take it over only if that run died", p.dlq.Name, untrusted.Shorten(untrusted.Terminal(h.Describe()), 300))
	return nil
}

func heldError(dlq *sqsapi.Queue, h redrive.Holder, race bool) error {
	how := "is being redriven by"
	if race {
		how = "was taken a moment ago by another redrive:"
	}
	return checkFailedf("%s %s %s: wait for it to finish, or if that run died pass --take-over", dlq.Name, how, untrusted.Shorten(untrusted.Terminal(h.Describe()), 300))
}

// takeLease takes the DLQ's lease for this run and keeps it while ctx
// lives. The returned context is cancelled, with errLeaseLost as its cause,
// if another run takes the lease over; release gives it back. Without
// permission to tag the DLQ the run goes on without a lease, warned.
func (o *redriveOptions) takeLease(ctx context.Context, c sqsapi.Client, p *redrivePlan) (context.Context, func(), error) {
	d := o.deps
	none := func() {}
	if p.source != nil {
		// From a file: there is no DLQ to hold, and the journal keys on
		// the file's MessageIds.
		return ctx, none, nil
	}
	if o.TakeOver {
		if h, ok, err := redrive.CurrentHolder(ctx, c, p.dlq.URL); err == nil && ok && redrive.Live(h, d.Now()) {
			q := fmt.Sprintf("Take over %s from %s? Only if that run died", p.dlq.Name, untrusted.Shorten(untrusted.Terminal(h.Describe()), 300))
			if err := d.confirm(q, o.Yes); err != nil {
				return ctx, none, err
			}
		}
	}
	me := redrive.Me(operator(), p.run, d.Now())
	lease, err := redrive.Acquire(ctx, c, p.dlq.URL, me, o.TakeOver, d.Now)
	var held *redrive.HeldError
	switch {
	case errors.As(err, &held):
		return ctx, none, heldError(p.dlq, held.Holder, held.Race)
	case errors.Is(err, redrive.ErrNoTagging):
		d.warnf("no lease on %s: %v; a second operator's redrive of it would not be stopped (docs/iam.md: sqs:TagQueue, sqs:UntagQueue, sqs:ListQueueTags)", p.dlq.Name, err)
		return ctx, none, nil
	case err != nil:
		return ctx, none, fmt.Errorf("take the lease on %s: %w", p.dlq.Name, err)
	}
	d.infof("lease: %s is held by this run (%s) until it ends", p.dlq.Name, me.Run)
	ctx, cancel := context.WithCancelCause(ctx)
	warned := false
	lease.Keep(func(by redrive.Holder) { cancel(&errLeaseLost{by: by}) }, func(err error) {
		if !warned {
			warned = true
			d.warnf("lease on %s not renewed: %v", p.dlq.Name, err)
		}
	})
	release := func() {
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer rcancel()
		if err := lease.Release(rctx); err != nil && !sqsapi.IsQueueMissing(err) {
			d.warnf("lease on %s not removed (%v): it expires by itself within %s", p.dlq.Name, err, redrive.LeaseTTL)
		}
		cancel(nil)
	}
	return ctx, release, nil
}
