package redrive

import (
	"context"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/redrive/movetask"
)

// A run that will not stop to ask (--yes, no --dry-run, no --take-over
// question, no --when-ok wait) takes the DLQ's lease while Resolve and
// Guard read, not after them: the lease's one-second read-back (Settle)
// then overlaps the plan's reads and its printing instead of following
// them — at 20 ms a call, the reads before the lease were a tenth of a
// 5,000-message redrive. The lease is written only after its own read
// found the DLQ free (or held by a dead run), as in Run; Run takes it up
// where it would have taken it, and says so in the same words. When Run
// never starts (the guard refuses, an error, Ctrl-C) DropEarlyLease gives
// it back before the process ends.

// earlyLease is a lease being taken ahead of Run for the run id run.
type earlyLease struct {
	run   string
	asked time.Time // when the lease was asked for: the rate's clock starts there
	me    lease.Holder
	store lease.Store
	got   *answer[lease.Held]
	at    time.Time // when got was answered
	taken bool      // Run took it up: Run releases it
}

// fresh says the lease taken ahead was answered within a renewal's
// interval (lease.TTL/4): Run keeps it as it is. An older one, never
// renewed while the plan was read, could be near its end: Run takes it
// again.
func (e *earlyLease) fresh() bool { return time.Since(e.at) < lease.TTL/4 }

// leasesEarly says whether a run of req, which the caller will not stop
// to ask (Env.NoQuestion), takes its lease ahead of Run.
func leasesEarly(env *Env, req Request) bool {
	return env.NoQuestion && !req.TakeOver && len(req.WhenOK) == 0 && req.FromFile == ""
}

// startEarlyLease starts taking p's lease now (see leasesEarly); the
// answer is Run's to take (holdLease) or DropEarlyLease's to give back.
func startEarlyLease(ctx context.Context, env *Env, p *Plan) *earlyLease {
	store, err := leaseStore(ctx, env, p)
	if err != nil {
		// Run meets the same error where it always did.
		return nil
	}
	e := &earlyLease{run: NewRunID(env.Now()), asked: time.Now(), store: store}
	me := lease.Me(env.Operator, e.run, env.Now())
	e.me = me
	e.got = ahead(func() (lease.Held, error) {
		tracef("early lease: asked")
		l, err := store.Acquire(ctx, me, false, env.Now)
		e.at = time.Now()
		tracef("early lease: answered")
		return l, err
	})
	return e
}

// holds says h is the lease this run is taking ahead: CheckLease's look,
// made at the same moment, may read it.
func (e *earlyLease) holds(h lease.Holder) bool { return e != nil && e.me.Same(h) }

// DropEarlyLease gives back a lease taken ahead of a Run that did not
// take it up (see leasesEarly): it waits for the lease's read-back, at
// most Settle, then removes the tag. Nil p, or a lease Run took, is a no-op.
func DropEarlyLease(ctx context.Context, env *Env, p *Plan) {
	if p == nil || p.early == nil || p.early.taken {
		return
	}
	e := p.early
	p.early = nil
	l, err := e.got.wait()
	if err != nil || l == nil {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := l.Release(rctx); err != nil {
		env.Warn("lease on %s not removed (%v): it expires by itself within %s", p.Source.Queue.Name, err, lease.TTL)
	}
}

// gated says Run may start its mover while the lease taken ahead is still
// being read back (moveGated): a lease was taken ahead, and nothing but the
// lease stands between it and the first send — no canary (whose wait
// dwarfs the second), no native task, no --when-ok wait. A --transform run
// is left out: its originals file would be opened (and a torn tail
// mended) before the run knew it held the DLQ.
func (r *runner) gated() bool {
	p := r.p
	return p.early != nil && p.Canary == 0 && !p.Req.Native && p.Transform == nil && r.env.WhenOK == nil
}

// moveGated is Run's move with the lease still being read back: the
// mover's workers make their first receives meanwhile (connections opened,
// the first batches in hand) and wait at the gate before they do anything
// else with them. The gate waits for the lease (holdLease), then looks at
// the move tasks and appends the fix event as Run does after the lease.
// A lease that is lost there (another run won the read-back, a running
// move task, an error) fails the gate: every batch received is made
// visible again at once (ChangeMessageVisibility 0), nothing is sent,
// journaled or recorded, and Run returns the error it always returned
// (exit 3 for a lease held by another run). So two runs never both send:
// the one that lost the read-back has only received.
func (r *runner) moveGated(ctx context.Context, tasks *answer[*movetask.RunningTask]) (*Summary, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var release func()
	// The lease goes back once the mover has returned (every delete
	// answered), while the run writes its event and closes its journal,
	// not after: nothing is left to send or delete. A run of the same
	// incident directory that took the lease in those milliseconds would
	// find the journal still locked and be refused (journal.ErrInUse),
	// never let in beside this one.
	released := make(chan struct{})
	r.moved = sync.OnceFunc(func() {
		go func() {
			defer close(released)
			if release != nil {
				release()
			}
		}()
	})
	defer func() {
		r.moved()
		<-released
	}()
	gate := sync.OnceValue(func() error {
		lctx, rel, err := holdLease(ctx, r.env, r.p, r.id)
		if err != nil {
			return err
		}
		release = rel
		tracef("lease held")
		// A lease taken over later stops the move as in Run: its cause
		// is the mover's context's.
		context.AfterFunc(lctx, func() {
			if lost := leaseLost(lctx); lost != nil {
				cancel(lost)
			}
		})
		return r.afterLease(lctx, tasks)
	})
	return r.move(ctx, gate)
}
