package report

import (
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// alarm is when the alarm check asks for (the DLQ's visible messages > 0
// over one period) would have fired: the first failure, plus the time a
// failing message takes to exhaust maxReceiveCount where check recorded
// it, plus the alarm's period. It is approximate by nature: the first
// failure is the earliest SentTimestamp mfdlq saw, and a message may fail
// later than it was sent.
type alarm struct {
	first                time.Time
	firstFrom            string        // where first comes from, for the reader
	retry                time.Duration // visibility timeout × maxReceiveCount; 0: unknown
	visibility, receives int
	period               time.Duration
	at                   time.Time
}

// alarmTime reads the first failure and the retry window from the
// incident; ok is false when no step saw a SentTimestamp.
func (inc *Incident) alarmTime() (alarm, bool) {
	a := alarm{period: cwapi.DLQAlarmPeriod}
	a.first, a.firstFrom = inc.firstFailure()
	if a.first.IsZero() {
		return a, false
	}
	if ev, ok := inc.Latest(incident.StepCheck); ok {
		f := figuresOf[check.Figures](ev)
		a.retry, a.visibility, a.receives = f.RetryWindow(), f.VisibilityTimeoutSeconds, f.MaxReceiveCount
	}
	a.at = a.first.Add(a.retry + a.period).Truncate(time.Minute)
	return a, true
}

// firstFailure is the earliest SentTimestamp among the DLQ's messages:
// classify's, which read them all (or its groups'), else the earliest of
// inspect's sample, which may miss older ones.
func (inc *Incident) firstFailure() (time.Time, string) {
	if c := inc.Classification; c != nil {
		if c.FirstSent != nil && !c.FirstSent.IsZero() {
			return c.FirstSent.UTC(), fmt.Sprintf("the earliest SentTimestamp of the %s classified", plural.Of(c.Messages, "message"))
		}
		var first time.Time
		for _, g := range c.Groups {
			if !g.FirstSent.IsZero() && (first.IsZero() || g.FirstSent.Before(first)) {
				first = g.FirstSent
			}
		}
		if !first.IsZero() {
			return first.UTC(), "the earliest SentTimestamp of classify's groups"
		}
	}
	var first time.Time
	for i := range inc.Samples {
		if t, ok := inc.Samples[i].SentTime(); ok && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	if first.IsZero() {
		return first, ""
	}
	return first.UTC(), fmt.Sprintf("the earliest SentTimestamp of the %s inspect sampled; older ones may be unsampled", plural.Of(len(inc.Samples), "message"))
}

// basis says how the alarm time was reached.
func (a alarm) basis() string {
	if a.retry > 0 {
		return fmt.Sprintf("%s to exhaust maxReceiveCount %d at a %s visibility timeout, then the alarm's %s period",
			human(a.retry), a.receives, human(time.Duration(a.visibility)*time.Second), sqsapi.Human(a.period))
	}
	return fmt.Sprintf("the alarm's %s period; the time to exhaust maxReceiveCount is not known, mfdlq check records it", sqsapi.Human(a.period))
}

// sentence is the alarm in one clause, against the incident's start and
// the report's time: an alarm time after the report is said as a delay
// from the first failure, never as a time the report has not reached.
func (a alarm) sentence(queue string, began, now time.Time) string {
	if !now.IsZero() && a.at.After(now) {
		return fmt.Sprintf("an alarm on %s > 0 would have fired about %s after the first failure (approximate: %s)", queue, sqsapi.Human(a.at.Sub(a.first)), a.basis())
	}
	s := fmt.Sprintf("an alarm on %s > 0 would have fired at about %s", queue, stamp(a.at, now))
	switch {
	case began.IsZero():
	case a.at.Before(began):
		s += fmt.Sprintf(", %s before this incident began", sqsapi.Human(began.Sub(a.at)))
	default:
		s += ", about when this incident began"
	}
	return s + " (approximate: " + a.basis() + ")"
}

// stamp writes t in UTC to the minute, its time alone on ref's day.
func stamp(t, ref time.Time) string { return onDay(t, ref, "15:04 UTC") }
