package redrive

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/health"
	"github.com/mfdlq/mfdlq/redrive/mover"
)

// waitWhenOK is --when-ok's wait before the move, after the lease: the
// lease says the run waits, the wait is written to the incident's waits
// file (a rerun after a SIGKILL takes it up), and nothing moves until
// every alarm has been OK for --for. Its error means nothing moved.
func (r *runner) waitWhenOK(ctx context.Context) error {
	s := r.env.WhenOK
	if s == nil {
		return nil
	}
	s.Run = r.id
	if err := s.Before(ctx); err != nil {
		if lost := leaseLost(ctx); lost != nil {
			return &Refusal{Reason: fmt.Sprintf("%v while this run waited for the alarms: nothing moved", lost)}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted while waiting for the alarms: nothing moved: %w", ctx.Err())
		}
		var gu *health.GiveUpError
		if errors.As(err, &gu) {
			return fmt.Errorf("%w: nothing moved, the messages stay in %s; run the same command again to wait again", err, r.p.Source.Queue.Name)
		}
		return err
	}
	r.env.Info("when-ok: every alarm OK for %s: moving", s.Gate.Options().For)
	// The rate's clock starts now, not when the lease was taken hours ago.
	r.rateFrom = time.Now()
	return nil
}

// runWatched is runMover under --when-ok's watch: an alarm leaving OK
// stops the sends at once (the mover's context ends: what was received is
// made visible again, as on Ctrl-C), the run waits for --for of OK again
// and moves what is left. Without --when-ok it is runMover.
func (r *runner) runWatched(ctx context.Context, opts mover.Options, limit int, prog *phases) (mover.Stats, error) {
	s := r.env.WhenOK
	if s == nil {
		return r.runMover(ctx, opts, limit, prog)
	}
	var total mover.Stats
	segments := 0
	err := s.Watched(ctx, func(sctx context.Context) (bool, error) {
		st, err := r.runMover(sctx, opts, limit-total.Handled(), prog)
		if segments > 0 {
			// What a segment left in the DLQ (skipped, without a source)
			// the next looks at again: counted once.
			skipped, sourceless, other := max(st.Skipped, total.Skipped), max(st.Sourceless, total.Sourceless), max(st.OtherSource, total.OtherSource)
			total = sumStats(total, st)
			total.Skipped, total.Sourceless, total.OtherSource = skipped, sourceless, other
		} else {
			total = st
		}
		segments++
		paused := sctx.Err() != nil && ctx.Err() == nil && st.Halted == "interrupted"
		if paused {
			total.Halted = ""
			// The rate starts again after the pause.
			opts.RateFrom = time.Time{}
		}
		return paused && limit-total.Handled() > 0, err
	})
	var gu *health.GiveUpError
	switch {
	case errors.As(err, &gu):
		total.Halted = fmt.Sprintf("paused for the alarms and gave up: %v", gu)
		return total, nil
	case err != nil && ctx.Err() != nil:
		return total, nil
	}
	return total, err
}
