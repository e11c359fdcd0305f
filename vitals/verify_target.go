package vitals

import "fmt"

// judgeTarget reads an observation of a redrive to a function, topic or
// bus: no payload came back (JudgeVerify checked), the DLQ down to what
// was left, and for a function no Errors since the redrive began. Errors
// fail at once: each one is an invocation that failed (its event retried
// by Lambda, then sent to its DLQ or destination). Throttles are reported,
// not judged: Lambda retries throttled asynchronous events itself.
func judgeTarget(o Observation, r Redriven) Judgement {
	var unmet, met []string
	if o.FunctionErrors != nil && *o.FunctionErrors > 0 {
		return Judgement{Done: true, Reasons: []string{fmt.Sprintf("%s reported %.0f error(s) since the redrive began: its failures come back to the DLQ after Lambda's retries; %s", r.DestQueue, *o.FunctionErrors, GoBack)}}
	}
	dlq := o.DLQVisible + o.DLQInFlight
	if dlq <= int64(r.Left) {
		met = append(met, fmt.Sprintf("the DLQ holds %d (%d left on purpose)", dlq, r.Left))
	} else {
		unmet = append(unmet, fmt.Sprintf("the DLQ still holds %d (%d visible, %d in flight), %d expected", dlq, o.DLQVisible, o.DLQInFlight, r.Left))
	}
	met = append(met, fmt.Sprintf("no redriven payload came back to the DLQ from %s", r.DestQueue))
	if r.Target == "lambda" {
		switch {
		case o.FunctionErrors == nil:
			met = append(met, fmt.Sprintf("%s's Errors: no CloudWatch data, not judged", r.DestQueue))
		default:
			met = append(met, fmt.Sprintf("%s reported no errors since the redrive began", r.DestQueue))
		}
		if o.FunctionThrottles != nil && *o.FunctionThrottles > 0 {
			met = append(met, fmt.Sprintf("%s was throttled %.0f time(s); Lambda retries throttled asynchronous events for up to their maximum age", r.DestQueue, *o.FunctionThrottles))
		}
	}
	if len(unmet) > 0 {
		return Judgement{Reasons: unmet}
	}
	return Judgement{Done: true, Pass: true, Reasons: met}
}
