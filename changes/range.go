package changes

import (
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// Span is what the range is made from: the failures' times (the DLQ
// messages' FailureTime), widened by Margin; From and To override.
type Span struct {
	Sent     []time.Time // the sampled messages' failure times (FailureTime)
	Source   string      // where Sent came from
	Margin   time.Duration
	From, To *time.Time // --from, --to
	Now      time.Time
}

// FailureTime dates one DLQ message's failure: by its first receive when
// SQS moved it there from a source queue (DeadLetterQueueSourceArn) and
// the first receive is known — on a backlogged source SentTimestamp is
// hours before the failing attempt — else by SentTimestamp (a function's,
// topic's or rule's DLQ gets a new message when the failure happens; its
// first receive is a reader's, after the fact). byReceive says which.
func FailureTime(m *sqsjson.Message) (t time.Time, byReceive, ok bool) {
	sent, okSent := m.SentTime()
	if first, okFirst := m.FirstReceiveTime(); okFirst && m.Attributes["DeadLetterQueueSourceArn"] != "" && (!okSent || !first.Before(sent)) {
		return first, true, true
	}
	return sent, false, okSent
}

// ErrNoTimes is a range with nothing to make it from.
var ErrNoTimes = errors.New("no message with a SentTimestamp to place the window")

// NewRange is the range looked at: [first failure − margin, last
// failure + margin], never past now, with --from/--to taking precedence.
func NewRange(s Span) (Range, error) {
	w := Range{Source: s.Source, Margin: s.Margin.String()}
	for _, t := range s.Sent {
		t := t.UTC()
		if w.FirstFailure == nil || t.Before(*w.FirstFailure) {
			w.FirstFailure = &t
		}
		if w.LastFailure == nil || t.After(*w.LastFailure) {
			w.LastFailure = &t
		}
	}
	if w.FirstFailure == nil && s.From == nil {
		return w, ErrNoTimes
	}
	if w.FirstFailure != nil {
		w.From, w.To = w.FirstFailure.Add(-s.Margin), w.LastFailure.Add(s.Margin)
	}
	if s.From != nil {
		w.From = s.From.UTC()
	}
	if s.To != nil {
		w.To = s.To.UTC()
	} else if w.To.IsZero() {
		w.To = s.Now.UTC()
	}
	if s.From != nil || s.To != nil {
		w.Source += " (--from/--to)"
	}
	if w.To.After(s.Now) {
		w.To = s.Now.UTC()
	}
	if !w.From.Before(w.To) {
		return w, fmt.Errorf("the window %s – %s is empty: --from must be before --to and before now", w.From.Format(time.RFC3339), w.To.Format(time.RFC3339))
	}
	return w, nil
}

// Clip is the part of w a history of the given length still holds, now:
// ok is false when none of it does. warning says what was left out.
func Clip(w Range, now time.Time, history time.Duration, what string) (from, to time.Time, ok bool, warning string) {
	oldest := now.Add(-history).Add(time.Minute) // a minute's slack for the clocks
	from, to = w.From, w.To
	switch {
	case !to.After(oldest):
		return from, to, false, fmt.Sprintf("%s keeps %s: the window ended before %s, so it holds none of it", what, Words(history), oldest.Format(time.RFC3339))
	case from.Before(oldest):
		return oldest, to, true, fmt.Sprintf("%s keeps %s: the window is clipped to start at %s (%s earlier are out of reach)", what, Words(history), oldest.Format(time.RFC3339), Words(oldest.Sub(from)))
	}
	return from, to, true, ""
}
