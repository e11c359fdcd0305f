package redrive

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// BeyondWindow's values (--beyond-window).
const (
	// BeyondMove moves the messages beyond the window anyway, said in the
	// summary and the report.
	BeyondMove = "move"
	// BeyondKeep leaves them in the DLQ, journaled and counted as the
	// selection's skips are.
	BeyondKeep = "keep"
)

// Window is the destination consumer's idempotency store as the plan read
// it, and the sample's messages that failed longer ago than its window:
// a completed record of those has expired, so a message that failed after
// its idempotent unit completed (charged, then crashed) repeats the effect.
type Window struct {
	// Consumer is the function whose environment (Var) named the store;
	// "" when --idempotency-table named it.
	Consumer, Var string
	Store         idempotency.Store
	// Length is the window: --idempotency-window (Given), else the
	// store's estimate (a lower bound); 0 when it is not known (Unread
	// says why).
	Length time.Duration
	Given  bool
	Unread string
	// Looked are the sample's messages under the selection; Beyond, those
	// whose first failed attempt is older than Length.
	Looked, Beyond int
}

// owner names the window's consumer in a sentence.
func (w *Window) owner() string {
	if w.Consumer == "" {
		return "the consumer"
	}
	return w.Consumer
}

// storeText is "mercadofresco-idempotencia, TTL on expira_en".
func (w *Window) storeText() string {
	t := untrusted.Terminal(w.Store.Table)
	if w.Store.TTLStatus != "" {
		t += ", " + w.Store.TTLText()
	}
	return t
}

// counts tells whether the move counts the messages beyond the window.
func (w *Window) counts() bool { return w != nil && w.Length > 0 }

// FirstFailed is when a message's first failed attempt began: its first
// receive (ApproximateFirstReceiveTimestamp, which the DLQ keeps from the
// source), else its SentTimestamp; ok is false when it carries neither.
func FirstFailed(m *sqsjson.Message) (time.Time, bool) {
	if t, ok := m.FirstReceiveTime(); ok {
		return t, true
	}
	return m.SentTime()
}

// checkWindow finds the destination's idempotency store, reads its window
// and counts the sample's messages beyond it: those refuse the redrive
// unless --beyond-window says what to do with them. A store that cannot be
// read is a warning, never an error.
func checkWindow(ctx context.Context, env *Env, p *Plan) error {
	w := findStore(ctx, env, p)
	if w == nil {
		return nil
	}
	p.Window = w
	readWindow(ctx, env, p.Req, w)
	if w.Length == 0 {
		env.Warn("idempotency: %s's window is not known: %s; --idempotency-window D says it", untrusted.Terminal(w.Store.Table), w.Unread)
		return nil
	}
	if err := countBeyond(ctx, env, p, w); err != nil {
		return err
	}
	if w.Beyond > 0 && p.Req.BeyondWindow == "" {
		return &Refusal{Reason: w.beyondText() + "; pass --beyond-window keep to leave them in the DLQ, or --beyond-window move to move them anyway"}
	}
	return nil
}

// findStore is the store --idempotency-table names, else the first the
// destinations' Lambda consumers' environments name; nil when none does.
func findStore(ctx context.Context, env *Env, p *Plan) *Window {
	if t := p.Req.IdempotencyTable; t != "" {
		return &Window{Var: "--idempotency-table", Store: idempotency.Store{Table: t}}
	}
	for i := range p.Dests {
		d := &p.Dests[i]
		if d.Target != nil && TargetKindOf(d.Queue.URL) != KindLambda {
			continue
		}
		fns := d.Consumers
		if fns == nil {
			var err error
			if fns, err = destConsumers(ctx, env, d); err != nil {
				// The fix-deployed check said so already; the plan's line
				// says the store was not found.
				continue
			}
		}
		for _, f := range fns {
			if f.IdempotencyTable != "" {
				return &Window{Consumer: f.Name, Var: f.IdempotencyVar, Store: idempotency.Store{Table: f.IdempotencyTable}}
			}
		}
	}
	return nil
}

// readWindow reads the store's TTL setting and its window (or takes
// --idempotency-window); what it could not read it says in w.Unread.
func readWindow(ctx context.Context, env *Env, req Request, w *Window) {
	if req.IdempotencyWindow > 0 {
		w.Length, w.Given = req.IdempotencyWindow, true
	}
	if env.DynamoDB == nil {
		w.Unread = "no DynamoDB client"
		return
	}
	db, err := env.DynamoDB(ctx)
	if err == nil {
		var s idempotency.Store
		s, err = idempotency.Read(ctx, db, w.Store.Table, env.Now())
		w.Store = s
	}
	switch {
	case err != nil:
		w.Unread = "it cannot be read (" + untrusted.Shorten(untrusted.Terminal(err.Error()), 200) + ")"
		if !w.Given {
			w.Length = 0
		}
		env.Warn("idempotency: %s cannot be fully read: %s", untrusted.Terminal(w.Store.Table), untrusted.Shorten(untrusted.Terminal(err.Error()), 200))
	case !w.Given && w.Store.Ahead == 0:
		w.Unread = fmt.Sprintf("none of the %d records looked at has a %s ahead of now", w.Store.Looked, untrusted.Terminal(w.Store.Expiry))
	case !w.Given:
		w.Length = w.Store.Window
	}
}

// countBeyond counts, among the sample the plan took (taking one when it
// has none), the selected messages whose first failure is older than the
// window: an estimate for the plan; the move counts every message.
func countBeyond(ctx context.Context, env *Env, p *Plan, w *Window) error {
	msgs := p.Sample.msgs
	if msgs == nil && p.Source.File == nil && p.Source.Queue.Depth.Visible > 0 {
		s, err := sampleSources(ctx, env, p.Source.Queue)
		if err != nil {
			env.Warn("idempotency: %v: the messages' ages are not known before the move", err)
		}
		msgs = s.msgs
	}
	var sel func(*sqsjson.Message) (bool, error)
	if p.Req.Selector != nil {
		var err error
		if sel, err = p.Req.Selector(); err != nil {
			return err
		}
	}
	now := env.Now()
	for i := range msgs {
		if sel != nil {
			if ok, err := sel(&msgs[i]); !ok || err != nil {
				continue
			}
		}
		w.Looked++
		if t, ok := FirstFailed(&msgs[i]); ok && now.Sub(t) > w.Length {
			w.Beyond++
		}
	}
	return nil
}

// beyondText is the sentence the plan and the refusal share.
func (w *Window) beyondText() string {
	return fmt.Sprintf("%d of %d looked at failed more than %s ago, beyond %s's idempotency window of %s (%s): any that were partly processed will repeat their effects",
		w.Beyond, w.Looked, idempotency.WindowText(w.Length), w.owner(), idempotency.WindowText(w.Length), w.storeText())
}

// WindowLines say the store and its window, and how many of the sample
// are beyond it and what happens to them, one line each; one line when no
// store was found.
func (p *Plan) WindowLines() []string {
	w := p.Window
	if w == nil {
		return []string{"idempotency: no store found (no consumer's environment names one): how long the consumer recognises a message it processed is not known; --idempotency-table NAME says it"}
	}
	named := "named by " + untrusted.Terminal(w.Var)
	if w.Consumer != "" {
		named = untrusted.Terminal(w.Consumer) + "'s store (" + untrusted.Terminal(w.Var) + ")"
	}
	if w.Length == 0 {
		return []string{fmt.Sprintf("idempotency: %s %s, window not known: %s", named, w.storeText(), w.Unread)}
	}
	how := "given by --idempotency-window"
	if !w.Given {
		how = fmt.Sprintf("estimated from %d of %d records: the largest %s ahead of now, a lower bound if the consumer was idle", w.Store.Ahead, w.Store.Looked, untrusted.Terminal(w.Store.Expiry))
	}
	out := []string{fmt.Sprintf("idempotency: %s %s, window %s (%s)", named, w.storeText(), idempotency.WindowText(w.Length), how)}
	switch {
	case p.Req.Native && w.Beyond > 0:
		out = append(out, w.beyondText()+" (from the sample; --native moves them all)")
	case w.Beyond > 0 && p.Req.BeyondWindow == BeyondKeep:
		out = append(out, w.beyondText()+"; --beyond-window keep: they stay in the DLQ, journaled and counted (from the sample; the move decides on each by its age)")
	case w.Beyond > 0:
		out = append(out, w.beyondText()+"; --beyond-window move: they move anyway (from the sample; the move counts them all)")
	case w.Looked > 0:
		out = append(out, fmt.Sprintf("none of the %d looked at failed more than %s ago: all within the window (the move counts any beyond it)", w.Looked, idempotency.WindowText(w.Length)))
	default:
		out = append(out, "the messages' ages are not known before the move: the move counts any beyond the window")
	}
	return out
}

// beyondCount counts, as the move goes, the selected messages beyond the
// window, phase by phase (the canary, then the rest): a message kept in
// the DLQ by the canary is looked at again by the rest.
type beyondCount struct {
	mu     sync.Mutex
	n      atomic.Int64
	phases []int
}

// selector wraps sel: a selected message beyond the window is counted and,
// with --beyond-window keep, left in the DLQ (the mover's skip journals
// it). The clock is the injected one: the plan's ages and the move's agree.
func (c *beyondCount) selector(w *Window, keep bool, now func() time.Time, sel func(*sqsjson.Message) (bool, error)) func(*sqsjson.Message) (bool, error) {
	return func(m *sqsjson.Message) (bool, error) {
		if sel != nil {
			if ok, err := sel(m); !ok || err != nil {
				return ok, err
			}
		}
		if t, ok := FirstFailed(m); ok && now().Sub(t) > w.Length {
			c.n.Add(1)
			return !keep, nil
		}
		return true, nil
	}
}

// end closes a phase.
func (c *beyondCount) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.phases = append(c.phases, int(c.n.Swap(0)))
}

// figures are the counts: kept messages are seen by every phase (the
// largest count is theirs), moved ones by one (their sum).
func (c *beyondCount) figures(keep bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, n := range append(c.phases, int(c.n.Load())) {
		if keep {
			total = max(total, n)
		} else {
			total += n
		}
	}
	return total
}

// WindowFigures are what a redrive event records of the window.
type WindowFigures struct {
	Table         string  `json:"table"`
	Consumer      string  `json:"consumer,omitempty"`
	TTL           string  `json:"ttl,omitempty"`
	WindowSeconds float64 `json:"window_seconds"`
	Estimated     bool    `json:"estimated"`
	// BeyondWindow is --beyond-window ("" : none was beyond in the
	// sample); Beyond counts the messages beyond the window the move met:
	// moved, or with "keep" left in the DLQ.
	BeyondWindow string `json:"beyond_window,omitempty"`
	Beyond       int    `json:"beyond"`
}

// windowFigures are the event's window figures; nil without a store.
func windowFigures(p *Plan, beyond int) *WindowFigures {
	w := p.Window
	if w == nil {
		return nil
	}
	f := &WindowFigures{Table: w.Store.Table, Consumer: w.Consumer, WindowSeconds: w.Length.Seconds(), Estimated: !w.Given && w.Length > 0,
		BeyondWindow: p.Req.BeyondWindow, Beyond: beyond}
	if w.Store.TTLStatus != "" {
		f.TTL = strings.TrimPrefix(w.Store.TTLText(), "TTL ")
	}
	return f
}

// WindowLine says what the move did with the messages beyond the window;
// "" when it met none or no window was known. Without --beyond-window
// (the plan's sample showed none) they stayed in the DLQ: LeftUnasked.
func (s *Summary) WindowLine(p *Plan) string {
	if s.Beyond == 0 || !p.Window.counts() {
		return ""
	}
	w, n := idempotency.WindowText(p.Window.Length), plural.Of(s.Beyond, "message")
	switch p.Req.BeyondWindow {
	case BeyondKeep:
		return fmt.Sprintf("%s failed more than %s ago, beyond %s's idempotency window, and stayed in the DLQ (--beyond-window keep; journaled as skipped)", n, w, p.Window.owner())
	case BeyondMove:
		return fmt.Sprintf("%s failed more than %s ago, beyond %s's idempotency window, and moved (--beyond-window move): watch their effects for repeats", n, w, p.Window.owner())
	}
	return fmt.Sprintf("%s failed more than %s ago, beyond %s's idempotency window, outside the plan's sample: they stayed in the DLQ (journaled as skipped); run again with --beyond-window keep or move", n, w, p.Window.owner())
}

// LeftUnasked tells whether the move left messages beyond the window in
// the DLQ that the plan did not ask about: a check that did not pass.
func (s *Summary) LeftUnasked(p *Plan) bool {
	return s.Beyond > 0 && p.Window.counts() && p.Req.BeyondWindow == ""
}
