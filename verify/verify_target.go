package verify

import (
	"fmt"

	"github.com/mfdlq/mfdlq/plural"
)

// judgeTarget reads an observation of a redrive to a function, topic or
// bus: no payload came back (Judge checked), the DLQ down to what was
// left, and for a function no Errors since the redrive began. Errors fail
// at once: each one is an invocation that failed (its event retried by
// Lambda, then sent to its DLQ or destination). Throttles are reported,
// not judged: Lambda retries throttled asynchronous events itself.
func judgeTarget(o Observation, r Redriven) Judgement {
	if o.FunctionErrors != nil && *o.FunctionErrors > 0 {
		return Judgement{Done: true, Reasons: []string{fmt.Sprintf("%s reported %s since the redrive began: its failures come back to the DLQ after Lambda's retries; %s",
			r.DestQueue, plural.Of(int(*o.FunctionErrors), "error"), GoBack)}}
	}
	dlq := o.DLQVisible + o.DLQInFlight + o.DLQDelayed
	if dlq > int64(r.Left) {
		return Judgement{Reasons: []string{fmt.Sprintf("the DLQ still holds %d (%d visible, %d in flight, %d delayed), %d expected", dlq, o.DLQVisible, o.DLQInFlight, o.DLQDelayed, r.Left)}}
	}
	if wait := targetWait(o, r); wait != "" {
		return Judgement{Reasons: []string{fmt.Sprintf("the DLQ holds %d (%d left on purpose)", dlq, r.Left), wait}}
	}
	met := []string{
		fmt.Sprintf("the DLQ holds %d (%d left on purpose)", dlq, r.Left),
		fmt.Sprintf("no redriven payload came back to the DLQ from %s", r.DestQueue),
	}
	met = append(met, r.Window.Parts...)
	unchecked := append([]string{}, r.Window.Unchecked...)
	if r.Target == "lambda" {
		if o.FunctionErrors == nil {
			unchecked = append(unchecked, fmt.Sprintf("that %s ran without errors: CloudWatch has no Errors for it since the redrive began", r.DestQueue))
		} else {
			met = append(met, fmt.Sprintf("%s reported no errors since the redrive began", r.DestQueue))
		}
		if o.FunctionThrottles != nil && *o.FunctionThrottles > 0 {
			met = append(met, fmt.Sprintf("%s was throttled %s; Lambda retried them within their maximum age, which has passed",
				r.DestQueue, plural.Of(int(*o.FunctionThrottles), "time")))
		}
	}
	for _, u := range unchecked {
		met = append(met, "not checked: "+u)
	}
	return Judgement{Done: true, Pass: true, Reasons: met, Unchecked: unchecked}
}

// targetWait is why a look at a target redrive cannot pass yet (""
// when it can): no failure window was read, or the look is inside it. A
// function's throttled events wait in Lambda for up to their maximum age
// unless its Invocations show every redriven event ran, unthrottled.
func targetWait(o Observation, r Redriven) string {
	w := r.Window
	if w == nil {
		return fmt.Sprintf("not proven: %s's failure window could not be read, so a failing event may still be on its way back", r.DestQueue)
	}
	if o.At.Before(w.RetriesBy) {
		return notYet(w.RetriesBy, fmt.Sprintf("a redriven event failing at %s can still come back to the DLQ: %s", r.DestQueue, w.RetriesWhy))
	}
	for i, d := range o.Subscribers {
		if n := d.Visible + d.InFlight + d.Delayed; n > 0 && i < len(w.Returning) {
			return notYet(o.At.Add(w.Returning[i].failsBackIn()), fmt.Sprintf("subscriber %s still holds %d (%d visible, %d in flight, %d delayed): a redriven message among them can still fail back to the DLQ (delay + visibility timeout × (maxReceiveCount + 1) after its consumer takes it)",
				d.Queue, n, d.Visible, d.InFlight, d.Delayed))
		}
	}
	if r.Target != "lambda" || w.MaxAgeBy.IsZero() || !o.At.Before(w.MaxAgeBy) {
		return ""
	}
	ran := o.FunctionInvocations != nil && *o.FunctionInvocations >= float64(r.Moved)
	throttled := o.FunctionThrottles != nil && *o.FunctionThrottles > 0
	if ran && !throttled {
		return ""
	}
	seen := "CloudWatch has no Invocations for it"
	if o.FunctionInvocations != nil {
		seen = fmt.Sprintf("its Invocations are %.0f of %d moved", *o.FunctionInvocations, r.Moved)
	}
	if throttled {
		seen += fmt.Sprintf(", and it was throttled %s", plural.Of(int(*o.FunctionThrottles), "time"))
	}
	return notYet(w.MaxAgeBy, fmt.Sprintf("%s: Lambda keeps a throttled or queued event for up to its maximum event age before it fails to the DLQ", seen))
}
