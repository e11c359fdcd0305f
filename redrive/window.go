package redrive

import (
	"context"

	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/redrive/sample"
	"github.com/mfdlq/mfdlq/redrive/window"
	"github.com/mfdlq/mfdlq/untrusted"
)

// checkWindow finds the destination's idempotency store, reads its window
// (window.Window) and counts the sample's messages beyond it: those
// refuse the redrive unless --beyond-window says what to do with them. A
// store that cannot be read is a warning, never an error.
func checkWindow(ctx context.Context, env *Env, p *Plan) error {
	w := findStore(ctx, env, p)
	if w == nil {
		return nil
	}
	p.Window = w
	if err := w.Read(ctx, env.DynamoDB, p.Req.IdempotencyWindow, env.Now()); err != nil {
		env.Warn("idempotency: %s cannot be fully read: %s", untrusted.Terminal(w.Store.Table), untrusted.Shorten(untrusted.Terminal(err.Error()), 200))
	}
	if w.Length == 0 {
		env.Warn("idempotency: %s's window is not known: %s; --idempotency-window D says it", untrusted.Terminal(w.Store.Table), w.Unread)
		return nil
	}
	if err := countBeyond(ctx, env, p, w); err != nil {
		return err
	}
	if w.Beyond > 0 && p.Req.BeyondWindow == "" {
		return &Refusal{Reason: w.BeyondText() + "; pass --beyond-window keep to leave them in the DLQ, or --beyond-window move to move them anyway"}
	}
	return nil
}

// findStore is the store --idempotency-table names, else the first the
// destinations' Lambda consumers' environments name; nil when none does.
func findStore(ctx context.Context, env *Env, p *Plan) *window.Window {
	if t := p.Req.IdempotencyTable; t != "" {
		return &window.Window{Var: "--idempotency-table", Store: idempotency.Store{Table: t}}
	}
	for i := range p.Dests {
		d := &p.Dests[i]
		if d.Target != nil && TargetKindOf(d.Queue.URL) != KindLambda {
			continue
		}
		fns := d.Consumers
		if fns == nil {
			var err error
			if fns, err = p.reads.consumersOf(ctx, env, d); err != nil {
				// The fix-deployed check said so already; the plan's line
				// says the store was not found.
				continue
			}
		}
		for _, f := range fns {
			if f.IdempotencyTable != "" {
				return &window.Window{Consumer: f.Name, Var: f.IdempotencyVar, Store: idempotency.Store{Table: f.IdempotencyTable}}
			}
		}
	}
	return nil
}

// countBeyond counts, among the sample the plan took (taking one when it
// has none), the selected messages whose first failure is older than the
// window: an estimate for the plan; the move counts every message.
func countBeyond(ctx context.Context, env *Env, p *Plan, w *window.Window) error {
	msgs := p.Sample.Messages()
	if msgs == nil && p.Source.File == nil && p.Source.Queue.Depth.Visible > 0 {
		s, err := sample.Take(ctx, env.SQS, p.Source.Queue)
		if err != nil {
			env.Warn("idempotency: %v: the messages' ages are not known before the move", err)
		}
		msgs = s.Messages()
	}
	w.CountBeyond(msgs, p.Select.Func(), env.Now())
	return nil
}

// WindowLines say the store and its window, and how many of the sample
// are beyond it and what happens to them, one line each; one line when no
// store was found.
func (p *Plan) WindowLines() []string { return p.Window.Lines(p.Req.Native, p.Req.BeyondWindow) }

// WindowLine says what the move did with the messages beyond the window;
// "" when it met none or no window was known. Without --beyond-window
// (the plan's sample showed none) they stayed in the DLQ: LeftUnasked.
func (s *Summary) WindowLine(p *Plan) string { return p.Window.MovedLine(s.Beyond, p.Req.BeyondWindow) }

// LeftUnasked tells whether the move left messages beyond the window in
// the DLQ that the plan did not ask about: a check that did not pass.
func (s *Summary) LeftUnasked(p *Plan) bool {
	return s.Beyond > 0 && p.Window.Counts() && p.Req.BeyondWindow == ""
}
