package redrive

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// LeaseLostError is the cause of a run stopped because another run took
// over its lease on the DLQ.
type LeaseLostError struct{ By lease.Holder }

func (e *LeaseLostError) Error() string { return "lease taken over by " + e.By.Describe() }

// CheckLease refuses early, before the plan and the question, when another
// live redrive holds the DLQ (a read only: nothing changes): a *lease.HeldError,
// unless Req.TakeOver, which is warned. What goes wrong reading a tag
// lease is left to Run, after the question; an S3 lease the operator asked
// for that cannot be read stops here.
func CheckLease(ctx context.Context, env *Env, p *Plan) error {
	dlq := p.Source.Queue
	look, _ := p.reads.leaseLook(ctx, env, p)
	// The guard's reads end here: Run reads afresh after the question.
	p.reads = nil
	if look.storeErr != nil {
		return look.storeErr
	}
	h, ok, err := look.h, look.ok, look.err
	switch {
	case err != nil && awserr.Code(err) == "NoSuchBucket":
		return notFoundf("--lease %s: the bucket does not exist: create it, or drop --lease to hold the queue tag", p.Req.Lease)
	case err != nil && p.Req.Lease != "":
		return err
	case err != nil || !ok || !lease.Live(h, env.Now()) || p.early.holds(h):
		return nil
	case !p.Req.TakeOver:
		return &lease.HeldError{Holder: h}
	}
	env.Warn("--take-over: %s is held by %s: take it over only if that run died", dlq.Name, untrusted.Shorten(untrusted.Terminal(h.Describe()), 300))
	return nil
}

// leaseLook is what CheckLease reads: the store's current holder (h, ok,
// err), or why there is no store to read (storeErr: a --lease that is
// not one, no S3 client).
type leaseLook struct {
	h        lease.Holder
	ok       bool
	err      error
	storeErr error
}

// lookLease reads the DLQ's lease for CheckLease; its error is always nil
// (the look's own errors are in it, for CheckLease to weigh).
func lookLease(ctx context.Context, env *Env, p *Plan) (leaseLook, error) {
	store, err := leaseStore(ctx, env, p)
	if err != nil {
		return leaseLook{storeErr: err}, nil
	}
	var l leaseLook
	l.h, l.ok, l.err = store.Current(ctx)
	return l, nil
}

// leaseStore is where the DLQ's lease lives: its queue tag, or with
// --lease an object under s3://BUCKET/PREFIX named by the DLQ's account,
// region and name.
func leaseStore(ctx context.Context, env *Env, p *Plan) (lease.Store, error) {
	dlq := p.Source.Queue
	if p.Req.Lease == "" {
		return lease.TagStore(env.SQS, dlq.URL), nil
	}
	loc, err := lease.ParseLocation(p.Req.Lease)
	if err != nil {
		return nil, usagef("--lease %v", err)
	}
	if env.S3 == nil {
		return nil, errors.New("--lease: no S3 client")
	}
	c, err := env.S3(ctx)
	if err != nil {
		return nil, err
	}
	// The S3 lease also holds the queue tag, so a plain redrive (which
	// reads only the tag) sees a conditional holder too.
	return lease.S3TagStore(c, loc.Bucket, loc.Key(dlq.Account, dlq.Region, dlq.Name), env.SQS, dlq.URL), nil
}

// LeaseLine says in the plan which lease holds the DLQ and what it
// guarantees.
func (p *Plan) LeaseLine() string {
	dlq := p.Source.Queue
	switch loc, err := lease.ParseLocation(p.Req.Lease); {
	case p.Source.File != nil:
		return "lease: none: a move from a file holds no DLQ"
	case p.Req.Lease == "" || err != nil:
		return lease.TagStore(nil, "").Guarantee()
	default:
		return lease.S3TagStore(nil, loc.Bucket, loc.Key(dlq.Account, dlq.Region, dlq.Name), nil, "").Guarantee()
	}
}

// holdLease takes the DLQ's lease for run and keeps it while ctx lives.
// The returned context is cancelled, with a *LeaseLostError as its cause,
// if another run takes the lease over; release gives it back. Without
// permission to tag the DLQ the run goes on without a lease, warned (an
// S3 lease asked for and out of reach stops the run). A move from a file
// holds none: there is no DLQ, and the journal keys on the file's
// MessageIds.
func holdLease(ctx context.Context, env *Env, p *Plan, run string) (context.Context, func(), error) {
	none := func() {}
	dlq := p.Source.Queue
	if p.Source.File != nil {
		return ctx, none, nil
	}
	if e := p.early; e != nil {
		e.taken = true
		if l, err := e.got.wait(); err != nil || e.fresh() {
			return leaseTaken(ctx, env, p, e.store, lease.Me(env.Operator, run, env.Now()), l, err)
		}
	}
	store, err := leaseStore(ctx, env, p)
	if err != nil {
		return ctx, none, err
	}
	if p.Req.TakeOver {
		if h, ok, err := store.Current(ctx); err == nil && ok && lease.Live(h, env.Now()) {
			q := fmt.Sprintf("Take over %s from %s? Only if that run died", dlq.Name, untrusted.Shorten(untrusted.Terminal(h.Describe()), 300))
			if err := env.Confirm(q); err != nil {
				return ctx, none, err
			}
		}
	}
	me := lease.Me(env.Operator, run, env.Now())
	if env.WhenOK != nil {
		me.Waiting = env.WhenOK.Waiting
	}
	l, err := store.Acquire(ctx, me, p.Req.TakeOver, env.Now)
	return leaseTaken(ctx, env, p, store, me, l, err)
}

// leaseTaken is what holdLease makes of store's Acquire for me: the
// refusal, the warning without tags, or the lease kept while ctx lives.
func leaseTaken(ctx context.Context, env *Env, p *Plan, store lease.Store, me lease.Holder, l lease.Held, err error) (context.Context, func(), error) {
	none := func() {}
	dlq := p.Source.Queue
	var held *lease.HeldError
	switch {
	case errors.As(err, &held):
		return ctx, none, err
	case errors.Is(err, lease.ErrNoTagging):
		env.Warn("no lease on %s: %v; a second operator's redrive of it would not be stopped (%s)", dlq.Name, err, noTagLeaseFix(ctx, env, dlq))
		return ctx, none, nil
	case err != nil:
		return ctx, none, fmt.Errorf("take the lease on %s: %w", dlq.Name, err)
	}
	where := ""
	if p.Req.Lease != "" {
		where = " in " + store.Where()
	}
	env.Info("lease: %s is held by this run (%s)%s until it ends", dlq.Name, me.Run, where)
	if env.WhenOK != nil {
		env.WhenOK.SetWaiting = l.SetWaiting
	}
	return keepLease(ctx, env, dlq, l)
}

// keepLease renews l while ctx lives: the returned context is cancelled,
// with a *LeaseLostError as its cause, when another run takes it over;
// release gives it back.
func keepLease(ctx context.Context, env *Env, dlq *sqsapi.Queue, l lease.Held) (context.Context, func(), error) {
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

// noTagLeaseFix is what would give a run without a tag lease one: for a
// DLQ in another account than the credentials', --lease s3:// — SQS's
// tagging calls are not cross-account (TagQueue: "cross-account
// permissions don't apply to this action"), so no IAM policy can help;
// otherwise the tagging permissions. GetCallerIdentity needs no
// permission; when it fails the account is not known and both are said.
func noTagLeaseFix(ctx context.Context, env *Env, dlq *sqsapi.Queue) string {
	const iam = "docs/iam.md: sqs:TagQueue, sqs:UntagQueue, sqs:ListQueueTags"
	const s3 = "--lease s3://BUCKET/PREFIX gives runs in both accounts one lease (docs/redrive.md)"
	if env.STS == nil || dlq.Account == "" {
		return iam
	}
	c, err := env.STS(ctx)
	if err != nil {
		return iam + "; a DLQ in another account: " + s3
	}
	id, err := provenance.WhoAmI(ctx, c)
	switch {
	case err != nil || id.Account == "":
		return iam + "; a DLQ in another account: " + s3
	case id.Account != dlq.Account:
		return fmt.Sprintf("the DLQ is in account %s, these credentials in %s, and SQS tags cannot be written across accounts — no IAM policy changes that: %s", dlq.Account, id.Account, s3)
	}
	return iam
}
