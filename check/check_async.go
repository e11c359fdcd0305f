package check

import (
	"fmt"
	"time"
)

// Finding ids of the Lambda asynchronous-invocation safeguards.
const (
	IDLambdaAsyncDLQ     = "lambda-async-dlq"
	IDLambdaAsyncRetries = "lambda-async-retries"
)

// minAsyncRetention is the least a function's DLQ should keep a failed
// event: a failure on Friday evening is still there on Monday.
const minAsyncRetention = 4 * 24 * time.Hour

// asyncFindings judges each function feeding the DLQ: where its failures
// go, its retries and event age, and the DLQ's retention.
func asyncFindings(in CheckInput) []Finding {
	var out []Finding
	for _, fn := range in.AsyncFunctions {
		via := "DeadLetterConfig"
		switch {
		case fn.OnFailure && fn.DeadLetter:
			via = "DeadLetterConfig and on-failure destination"
		case fn.OnFailure:
			via = "on-failure destination"
		}
		out = append(out, Finding{ID: IDLambdaAsyncDLQ, Status: Pass, Queue: in.DLQ.Name,
			Message: fmt.Sprintf("%s: failed asynchronous invocations land here (%s)", fn.Name, via)})
		r := Finding{ID: IDLambdaAsyncRetries, Status: Pass, Queue: in.DLQ.Name,
			Message: fmt.Sprintf("%s: MaximumRetryAttempts %d, MaximumEventAgeInSeconds %d", fn.Name, fn.MaxRetries, int(fn.MaxEventAge/time.Second))}
		if fn.MaxRetries == 0 {
			r.Status = Warn
			r.Message += ": one transient error sends an event to the DLQ"
			r.Fix = fmt.Sprintf("aws lambda put-function-event-invoke-config --function-name %s --maximum-retry-attempts 2", fn.Name)
		}
		out = append(out, r)
		ret := Finding{ID: IDDLQRetention, Status: Pass, Queue: in.DLQ.Name,
			Message: fmt.Sprintf("DLQ retention %s for %s's failed events", days(in.DLQ.Retention), fn.Name)}
		if in.DLQ.Retention < minAsyncRetention {
			ret.Status = Warn
			ret.Message += ": a failure on Friday evening expires before Monday"
			ret.Fix = fmt.Sprintf("set %s's MessageRetentionPeriod to 1209600 (14 days)", in.DLQ.Name)
		}
		out = append(out, ret)
	}
	return out
}
