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
	dlq := o.DLQVisible + o.DLQInFlight
	if dlq > int64(r.Left) {
		return Judgement{Reasons: []string{fmt.Sprintf("the DLQ still holds %d (%d visible, %d in flight), %d expected", dlq, o.DLQVisible, o.DLQInFlight, r.Left)}}
	}
	met := []string{
		fmt.Sprintf("the DLQ holds %d (%d left on purpose)", dlq, r.Left),
		fmt.Sprintf("no redriven payload came back to the DLQ from %s", r.DestQueue),
	}
	var unchecked []string
	if r.Target == "lambda" {
		if o.FunctionErrors == nil {
			unchecked = append(unchecked, fmt.Sprintf("that %s ran without errors: CloudWatch has no Errors for it since the redrive began", r.DestQueue))
		} else {
			met = append(met, fmt.Sprintf("%s reported no errors since the redrive began", r.DestQueue))
		}
		if o.FunctionThrottles != nil && *o.FunctionThrottles > 0 {
			met = append(met, fmt.Sprintf("%s was throttled %s; Lambda retries throttled asynchronous events for up to their maximum age",
				r.DestQueue, plural.Of(int(*o.FunctionThrottles), "time")))
		}
	}
	for _, u := range unchecked {
		met = append(met, "not checked: "+u)
	}
	return Judgement{Done: true, Pass: true, Reasons: met, Unchecked: unchecked}
}
