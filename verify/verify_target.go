package verify

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/plural"
)

// judgeTarget reads an observation of a redrive to a function, topic or
// bus: no payload came back (Judge checked), the DLQ down to what was
// left, and for a function the redriven events themselves in its logs
// (judgeFunction); for a topic or bus the subscribers' return window.
// A redriven event that failed fails at once: Lambda sends it to the DLQ
// or destination after its retries. The function's own traffic — its
// Errors, Throttles and Invocations — decides nothing: one error of
// another event is not the fix failing, and a busy function's
// Invocations reach any count without a redriven event having run.
func judgeTarget(o Observation, r Redriven) Judgement {
	if ev := o.Events; r.Target == "lambda" && ev != nil && len(ev.Failed) > 0 {
		return Judgement{Done: true, Reasons: []string{fmt.Sprintf("%s of %d failed in %s (request id %s; its line in %s: %q): Lambda sends a failed event to the DLQ after its retries; %s",
			plural.Of(len(ev.Failed), "redriven event"), ev.Sought, r.DestQueue, ev.Failed[0], ev.Group, ev.FailedLine, GoBack)}}
	}
	dlq := o.DLQVisible + o.DLQInFlight + o.DLQDelayed
	if dlq > int64(r.Left) {
		return Judgement{Reasons: []string{fmt.Sprintf("the DLQ still holds %d (%d visible, %d in flight, %d delayed), %d expected", dlq, o.DLQVisible, o.DLQInFlight, o.DLQDelayed, r.Left)}}
	}
	held := fmt.Sprintf("the DLQ holds %d (%d left on purpose)", dlq, r.Left)
	if r.Target == "lambda" {
		return judgeFunction(o, r, held)
	}
	if wait := targetWait(o, r); wait != "" {
		return Judgement{Reasons: []string{held, wait}}
	}
	met := []string{held, fmt.Sprintf("no redriven payload came back to the DLQ from %s", r.DestQueue)}
	met = append(met, r.ReturnWindow.Parts...)
	unchecked := append([]string{}, r.ReturnWindow.Unchecked...)
	for _, u := range unchecked {
		met = append(met, "not checked: "+u)
	}
	return Judgement{Done: true, Pass: true, Reasons: met, Unchecked: unchecked}
}

// judgeFunction passes a redrive to a function when its logs show every
// redriven event ran (a clean REPORT line for each request id) and none
// came back: nothing is then left to fail back, return window or not. Anything
// less is not proven: until the retries are over and the maximum event
// age has passed it says when to look again; after, what is missing.
func judgeFunction(o Observation, r Redriven, held string) Judgement {
	ev := o.Events
	if r.ReturnWindow != nil && ev != nil && ev.Err == "" && ev.Sought > 0 && ev.Sought >= r.Moved && ev.Ran == ev.Sought {
		return Judgement{Done: true, Pass: true, Reasons: []string{held,
			fmt.Sprintf("no redriven payload came back to the DLQ from %s", r.DestQueue),
			fmt.Sprintf("every redriven event ran: %d of %d request ids end with a REPORT line in %s, none with a failure", ev.Ran, ev.Sought, ev.Group)}}
	}
	why := eventsWhy(ev, r)
	w := r.ReturnWindow
	switch {
	case w == nil:
		return Judgement{Reasons: []string{held, fmt.Sprintf("not proven: %s's return window could not be read, so a failing event may still be on its way back; %s", r.DestQueue, why)}}
	case o.At.Before(w.RetriesBy):
		return Judgement{Reasons: []string{held, notYet(w.RetriesBy, fmt.Sprintf("a redriven event failing at %s can still come back to the DLQ: %s; %s", r.DestQueue, w.RetriesWhy, why))}}
	case o.At.Before(w.MaxAgeBy):
		return Judgement{Reasons: []string{held, notYet(w.MaxAgeBy, why+": Lambda keeps a throttled or queued event for up to its maximum event age before it fails to the DLQ")}}
	}
	return Judgement{Reasons: []string{held, fmt.Sprintf("not proven: %s, and their maximum event age has passed (%s): an event that ran is in the logs, one that failed or expired is in the DLQ — look in %s, or allow logs:FilterLogEvents on it",
		why, clock(w.MaxAgeBy), r.DestQueue)}}
}

// eventsWhy says what the logs could not show of the redriven events.
func eventsWhy(ev *EventsRun, r Redriven) string {
	switch {
	case ev == nil:
		return fmt.Sprintf("the redriven events were not looked for in %s's logs", r.DestQueue)
	case ev.Err != "":
		return fmt.Sprintf("the redriven events cannot be found: %s (verify needs logs:FilterLogEvents on it)", ev.Err)
	case ev.Sought < r.Moved:
		return fmt.Sprintf("the journal holds the Invoke request ids of %d of the %d moved (one written before they were kept): the others cannot be found in %s", ev.Sought, r.Moved, ev.Group)
	}
	parts := []string{fmt.Sprintf("%d of %d redriven events have no REPORT line in %s yet (found by their Invoke request ids)", ev.Sought-ev.Ran, ev.Sought, ev.Group)}
	if ev.Capped {
		parts = append(parts, fmt.Sprintf("the read stopped after %d pages of the group's lines", maxLogPages))
	}
	return strings.Join(parts, "; ")
}

// targetWait is why a look at a topic or bus redrive cannot pass yet (""
// when it can): no return window was read, the look is inside it, or a
// subscriber queue still holds messages.
func targetWait(o Observation, r Redriven) string {
	w := r.ReturnWindow
	if w == nil {
		return fmt.Sprintf("not proven: %s's return window could not be read, so a failing event may still be on its way back", r.DestQueue)
	}
	if o.At.Before(w.RetriesBy) {
		return notYet(w.RetriesBy, fmt.Sprintf("a redriven event failing at %s can still come back to the DLQ: %s", r.DestQueue, w.RetriesWhy))
	}
	for i, d := range o.Subscribers {
		if n := d.Total(); n > 0 && i < len(w.Returning) {
			return notYet(o.At.Add(w.Returning[i].failsBackIn()), fmt.Sprintf("subscriber %s still holds %d (%d visible, %d in flight, %d delayed): a redriven message among them can still fail back to the DLQ (delay + visibility timeout × (maxReceiveCount + 1) after its consumer takes it)",
				d.Queue, n, d.Visible, d.InFlight, d.Delayed))
		}
	}
	return ""
}
