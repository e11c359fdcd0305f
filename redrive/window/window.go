// Package window is a redrive's idempotency window: the destination
// consumer's store (package idempotency reads it) and how long it
// recognises a message, the plan's sample of messages beyond it (failed
// longer ago, their records expired), the plan's and the summary's lines
// about them, the move's BeyondCount, and the event's Figures. redrive's
// guard finds the store; the package never imports redrive.
package window

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

// Window is the destination consumer's idempotency store as a redrive's
// plan read it, and the sample's messages that failed longer ago than its
// window: a completed record of those has expired, so a message that
// failed after its idempotent unit completed (charged, then crashed)
// repeats the effect.
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

// Counts tells whether the move counts the messages beyond the window: a
// store was found and its window is known.
func (w *Window) Counts() bool { return w != nil && w.Length > 0 }

// firstFailed is when a message's first failed attempt began: its first
// receive (ApproximateFirstReceiveTimestamp, which the DLQ keeps from the
// source), else its SentTimestamp; ok is false when it carries neither.
func firstFailed(m *sqsjson.Message) (time.Time, bool) {
	if t, ok := m.FirstReceiveTime(); ok {
		return t, true
	}
	return m.SentTime()
}

// Read reads the store's TTL setting and its window (or takes given, the
// operator's --idempotency-window); what it could not read it says in
// w.Unread. A store that cannot be read is returned as the error, for a
// warning: the window then is given or not known.
func (w *Window) Read(ctx context.Context, open func(context.Context) (idempotency.DynamoDB, error), given time.Duration, now time.Time) error {
	if given > 0 {
		w.Length, w.Given = given, true
	}
	if open == nil {
		w.Unread = "no DynamoDB client"
		return nil
	}
	db, err := open(ctx)
	if err == nil {
		var s idempotency.Store
		s, err = idempotency.Read(ctx, db, w.Store.Table, now)
		w.Store = s
	}
	trusted, why := idempotency.Trusted(w.Var, w.Store)
	switch {
	case err != nil:
		w.Unread = "it cannot be read (" + untrusted.Shorten(untrusted.Terminal(err.Error()), 200) + ")"
		if !w.Given {
			w.Length = 0
		}
		return err
	case !trusted:
		w.Unread = untrusted.Terminal(why)
		if !w.Given {
			w.Length = 0
		}
	case !w.Given && w.Store.Ahead == 0:
		w.Unread = fmt.Sprintf("none of the %d records looked at has a %s ahead of now", w.Store.Looked, untrusted.Terminal(w.Store.Expiry))
		if w.Store.Truncated {
			// Expired records TTL has not deleted yet can fill the
			// bounded read: the live ones may lie past it.
			w.Unread += ", and the read stopped at its bound with more of the table unread (expired records not yet deleted by TTL fill it)"
		}
	case !w.Given:
		w.Length = w.Store.Window
	}
	return nil
}

// CountBeyond counts, among msgs, the ones sel selects (nil: all) and
// those of them whose first failure is older than the window (Looked,
// Beyond): an estimate for the plan; the move counts every message.
func (w *Window) CountBeyond(msgs []sqsjson.Message, sel func(*sqsjson.Message) (bool, error), now time.Time) {
	for i := range msgs {
		if sel != nil {
			if ok, err := sel(&msgs[i]); !ok || err != nil {
				continue
			}
		}
		w.Looked++
		if t, ok := firstFailed(&msgs[i]); ok && now.Sub(t) > w.Length {
			w.Beyond++
		}
	}
}

// BeyondText is the sentence the plan and the refusal share.
func (w *Window) BeyondText() string {
	return fmt.Sprintf("%d of %d looked at failed more than %s ago, beyond %s's idempotency window of %s (%s): any that were partly processed will repeat their effects",
		w.Beyond, w.Looked, idempotency.WindowText(w.Length), w.owner(), idempotency.WindowText(w.Length), w.storeText())
}

// Lines say the store and its window, and how many of the sample are
// beyond it and what happens to them (native: --native moves them all;
// beyond: --beyond-window), one line each; one line when no store was
// found (w nil).
func (w *Window) Lines(native bool, beyond string) []string {
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
	case native && w.Beyond > 0:
		out = append(out, w.BeyondText()+" (from the sample; --native moves them all)")
	case w.Beyond > 0 && beyond == BeyondKeep:
		out = append(out, w.BeyondText()+"; --beyond-window keep: they stay in the DLQ, journaled and counted (from the sample; the move decides on each by its age)")
	case w.Beyond > 0:
		out = append(out, w.BeyondText()+"; --beyond-window move: they move anyway (from the sample; the move counts them all)")
	case w.Looked > 0:
		out = append(out, fmt.Sprintf("none of the %d looked at failed more than %s ago: all within the window (the move counts any beyond it)", w.Looked, idempotency.WindowText(w.Length)))
	default:
		out = append(out, "the messages' ages are not known before the move: the move counts any beyond the window")
	}
	return out
}

// MovedLine says what the move did with the n messages beyond the window
// it met (beyond: --beyond-window); "" when it met none or no window was
// known. Without --beyond-window (the plan's sample showed none) they
// stayed in the DLQ.
func (w *Window) MovedLine(n int, beyond string) string {
	if n == 0 || !w.Counts() {
		return ""
	}
	win, msgs := idempotency.WindowText(w.Length), plural.Of(n, "message")
	switch beyond {
	case BeyondKeep:
		return fmt.Sprintf("%s failed more than %s ago, beyond %s's idempotency window, and stayed in the DLQ (--beyond-window keep; journaled as skipped)", msgs, win, w.owner())
	case BeyondMove:
		return fmt.Sprintf("%s failed more than %s ago, beyond %s's idempotency window, and moved (--beyond-window move): watch their effects for repeats", msgs, win, w.owner())
	}
	return fmt.Sprintf("%s failed more than %s ago, beyond %s's idempotency window, outside the plan's sample: they stayed in the DLQ (journaled as skipped); run again with --beyond-window keep or move", msgs, win, w.owner())
}

// BeyondCount counts, as the move goes, the selected messages beyond the
// window, phase by phase (the canary, then the rest): a message kept in
// the DLQ by the canary is looked at again by the rest.
type BeyondCount struct {
	mu     sync.Mutex
	n      atomic.Int64
	phases []int
}

// Selector wraps sel: a selected message beyond the window is counted and,
// with keep (--beyond-window keep), left in the DLQ (the mover's skip
// journals it). The clock is the injected one: the plan's ages and the
// move's agree.
func (c *BeyondCount) Selector(w *Window, keep bool, now func() time.Time, sel func(*sqsjson.Message) (bool, error)) func(*sqsjson.Message) (bool, error) {
	return func(m *sqsjson.Message) (bool, error) {
		if sel != nil {
			if ok, err := sel(m); !ok || err != nil {
				return ok, err
			}
		}
		if t, ok := firstFailed(m); ok && now().Sub(t) > w.Length {
			c.n.Add(1)
			return !keep, nil
		}
		return true, nil
	}
}

// End closes a phase.
func (c *BeyondCount) End() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.phases = append(c.phases, int(c.n.Swap(0)))
}

// Total is the count: kept messages are seen by every phase (the largest
// count is theirs), moved ones by one (their sum).
func (c *BeyondCount) Total(keep bool) int {
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

// Figures are what a redrive event records of the window.
type Figures struct {
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

// Figures are the event's window figures (beyondWindow: --beyond-window;
// beyond: the move's count); nil without a store.
func (w *Window) Figures(beyondWindow string, beyond int) *Figures {
	if w == nil {
		return nil
	}
	f := &Figures{Table: w.Store.Table, Consumer: w.Consumer, WindowSeconds: w.Length.Seconds(), Estimated: !w.Given && w.Length > 0,
		BeyondWindow: beyondWindow, Beyond: beyond}
	if w.Store.TTLStatus != "" {
		f.TTL = strings.TrimPrefix(w.Store.TTLText(), "TTL ")
	}
	return f
}
