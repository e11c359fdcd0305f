package classify

// Step Functions' error names: a state machine's Catch hands a failure on
// as {"Error": "States.Timeout", "Cause": …}, and a DLQ fed from a Catch
// (or an EventBridge target) carries that name. The States.* names and the
// Lambda service's are documented (Step Functions developer guide, "Error
// handling in Step Functions": error names; the Lambda task's retriable
// service exceptions).
var statesErrors = map[string]row{
	"States.Timeout":                  {class: "a task ran longer than its TimeoutSeconds", verdict: VerdictTransient, timeout: true},
	"States.HeartbeatTimeout":         {class: "a task sent no heartbeat within HeartbeatSeconds", verdict: VerdictTransient, timeout: true},
	"States.Http.Socket":              {class: "an HTTP task's connection failed or timed out: " + whyConnect, verdict: VerdictTransient},
	"States.Permissions":              {class: "the state machine's role may not run the task — " + whyPermission, verdict: VerdictTransient},
	"States.DataLimitExceeded":        {class: "the input or output is over Step Functions' 256 KiB: the message is too large, every time", verdict: VerdictPoison},
	"States.Runtime":                  {class: "the input cannot be processed by the state machine's definition (a path the input lacks): the code and the message's format disagree", verdict: VerdictPoison},
	"States.NoChoiceMatched":          {class: "no Choice rule matches the input: the state machine does not know this kind of message", verdict: VerdictPoison},
	"States.ParameterPathFailure":     {class: "a parameter's path names a field the input lacks: the code and the message's format disagree", verdict: VerdictPoison},
	"States.ResultPathMatchFailure":   {class: "the result cannot be placed at its ResultPath in this input: the code and the message's format disagree", verdict: VerdictPoison},
	"States.IntrinsicFailure":         {class: "an intrinsic function failed on the input's values", verdict: VerdictPoison},
	"States.QueryEvaluationError":     {class: "a JSONata expression failed on the input's values", verdict: VerdictPoison},
	"Lambda.ServiceException":         {class: "the Lambda service failed: retryable", verdict: VerdictTransient},
	"Lambda.AWSLambdaException":       {class: "the Lambda service failed: retryable", verdict: VerdictTransient},
	"Lambda.SdkClientException":       {class: "the call to Lambda failed: retryable", verdict: VerdictTransient},
	"Lambda.TooManyRequestsException": {class: "Lambda throttled the task: retryable, with more wait", verdict: VerdictTransient, wait: true},
}

// statesFact reads a Step Functions error name (statesErrors).
func statesFact(t string) (fact, bool) { return tokenFact(t, "Step Functions error", statesErrors) }
