// Package check decides which safeguards would have warned of the incident
// earlier: the DLQ's alarm and retention, the source's visibility timeout,
// maxReceiveCount and retry budget. Result is check's --output json and
// check.json.
package check

import (
	"cmp"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Status is a finding's judgement, and Worst of them check's verdict.
type Status string

// Finding statuses. Skip is a safeguard that cannot be judged from what
// mfdlq can see (no mapping, no flag given).
const (
	Pass Status = "pass"
	Warn Status = "warn"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Result is check's --output json and check.json.
type Result struct {
	Queue    string    `json:"queue"`
	Verdict  Status    `json:"verdict"`
	Findings []Finding `json:"findings"`
}

// Finding ids: stable, so scripts and the report can refer to them.
const (
	IDDLQAlarm          = "dlq-alarm"
	IDDLQHasSource      = "dlq-has-source"
	IDDLQRetention      = "dlq-retention"
	IDVisibilityLambda  = "visibility-vs-function-timeout"
	IDVisibilityRead    = "visibility-vs-read-timeout"
	IDMaxReceiveCount   = "max-receive-count"
	IDAttemptsPerDepend = "attempts-per-dependency"
)

// MaxAttemptsPerDependency is the most calls one message may make to a
// failing dependency before it lands in the DLQ.
const MaxAttemptsPerDependency = 15

// Finding is one safeguard, judged.
type Finding struct {
	ID      string `json:"id"`
	Status  Status `json:"status"`
	Queue   string `json:"queue"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// CheckInput is everything check judges.
type CheckInput struct {
	DLQ     *sqsapi.Queue
	Sources []*sqsapi.Queue
	// Alarms are the metric alarms on the DLQ's
	// ApproximateNumberOfMessagesVisible, plain or metric math.
	Alarms []cwtypes.MetricAlarm
	// Notifiers are, per alarm name (the DLQ's and the sources' age
	// alarms), a composite alarm over it that has actions: an alarm
	// without actions of its own still tells someone through it.
	Notifiers map[string]string
	// NotifierStuck are, per alarm name of Notifiers, when that composite
	// went into ALARM (" since …", or "" unknown) when it is there: its
	// actions run on a change of its state, so while it stays in ALARM
	// for another of its alarms it tells no one of this one.
	NotifierStuck map[string]*string
	// AlarmsUnknown says why the alarms could not be read (CloudWatch
	// denied or missing); "" when they were.
	AlarmsUnknown string
	// Mappings are the Lambda mappings reading each source, by source
	// name; a source missing from it could not be looked at (Lambda
	// denied), which is not the same as no mapping.
	Mappings         map[string][]lambdaapi.Mapping
	SDKAttempts      int
	WorkflowAttempts int
	ReadTimeout      time.Duration // 0: not given
	Topic            string        // for the alarm's fix line
	// AsyncFunctions are the Lambda functions whose failed asynchronous
	// invocations land in the DLQ.
	AsyncFunctions []lambdaapi.AsyncFunction
	// Stores are the idempotency stores the mappings' functions name, by
	// table (consumer.go).
	Stores map[string]StoreReading
	// OldestAge is the age of the DLQ's oldest message (CloudWatch's
	// ApproximateAgeOfOldestMessage); 0: not known.
	OldestAge time.Duration
	// AgeAlarms are the alarms on each source's ApproximateAgeOfOldestMessage
	// by source name (a source missing: they could not be read); nil: not
	// gathered, no finding.
	AgeAlarms map[string][]cwtypes.MetricAlarm
}

// Findings judges every safeguard, the DLQ's first, then each source's.
func Findings(in CheckInput) []Finding {
	out := []Finding{alarmFinding(in)}
	out = append(out, asyncFindings(in)...)
	if len(in.Sources) == 0 && len(in.AsyncFunctions) == 0 {
		out = append(out, Finding{ID: IDDLQHasSource, Status: Warn, Queue: in.DLQ.Name,
			Message: "no queue's redrive policy names this DLQ",
			Fix:     "set a RedrivePolicy on the source queue naming " + in.DLQ.ARN})
	}
	for _, src := range in.Sources {
		out = append(out, retentionFinding(in.DLQ, src))
		ms, known := in.Mappings[src.Name]
		out = append(out, lambdaFindings(src, ms, known)...)
		out = append(out, consumerFindings(in, src, ms)...)
		out = append(out, readTimeoutFinding(src, in.ReadTimeout))
		out = append(out, receiveCountFinding(src))
		out = append(out, attemptsFinding(src, in.SDKAttempts, in.WorkflowAttempts))
	}
	return out
}

// Worst is the overall verdict of findings: fail, else warn, else pass.
func Worst(fs []Finding) Status {
	v := Pass
	for _, f := range fs {
		switch {
		case f.Status == Fail:
			return Fail
		case f.Status == Warn:
			v = Warn
		}
	}
	return v
}

func alarmFinding(in CheckInput) Finding {
	f := Finding{ID: IDDLQAlarm, Queue: in.DLQ.Name}
	topic := in.Topic
	topic = cmp.Or(topic, "ARN")
	fix := fmt.Sprintf("mfdlq check --queue %s --create-alarm --topic %s", in.DLQ.Name, topic)
	if in.AlarmsUnknown != "" {
		// Not verified is not a pass, and not proof of a missing alarm.
		f.Status, f.Message = Warn, "alarms unknown: "+in.AlarmsUnknown
		f.Fix = "let this role call cloudwatch:DescribeAlarms (docs/iam.md), then run mfdlq check again"
		return f
	}
	if len(in.Alarms) == 0 {
		f.Status, f.Message, f.Fix = Fail, "no CloudWatch alarm on ApproximateNumberOfMessagesVisible > 0", fix
		return f
	}
	var last, stuckOne, stuckVia, stuckViaFix string
	for _, a := range in.Alarms {
		name := aws.ToString(a.AlarmName)
		if problem := alarmProblem(a, in.Notifiers); problem != "" {
			last = fmt.Sprintf("alarm %s %s", name, problem)
			continue
		}
		if st := stuck(a); st != "" {
			stuckOne = fmt.Sprintf("alarm %s %s", name, st)
			continue
		}
		if since := in.NotifierStuck[name]; since != nil && notifies(a, nil) == "" {
			c := in.Notifiers[name]
			stuckVia = fmt.Sprintf("alarm %s notifies only through the composite alarm %s, which is in ALARM%s for another of its alarms: its actions run only when its state changes, so the DLQ's first message tells no one", name, c, *since)
			stuckViaFix = fmt.Sprintf("give %s an action of its own (or mfdlq check --queue %s --create-alarm --topic %s), and see why %s is in ALARM", name, in.DLQ.Name, topic, c)
			continue
		}
		f.Status = Pass
		f.Message = fmt.Sprintf("alarm %s fires on the first message within 5 minutes and %s", name, notifies(a, in.Notifiers))
		if cwapi.IsMath(a) {
			f.Message = fmt.Sprintf("metric-math alarm %s watches the DLQ's depth within 5 minutes (its expression is not judged) and %s", name, notifies(a, in.Notifiers))
		}
		return f
	}
	if stuckVia != "" {
		f.Status, f.Message, f.Fix = Warn, stuckVia, stuckViaFix
		return f
	}
	if stuckOne != "" {
		f.Status, f.Message = Warn, stuckOne
		f.Fix = fmt.Sprintf("handle what %s holds (mfdlq contain --queue %s, then redrive or export): once it is empty the alarm returns to OK and tells of the next message", in.DLQ.Name, in.DLQ.Name)
		return f
	}
	f.Status, f.Message, f.Fix = Warn, last, "make it fire on > 0 over 5 minutes with an action, or "+fix
	return f
}

// alarmProblem says what keeps an alarm from warning of the first DLQ
// message within five minutes, or "" when nothing does. A metric-math
// alarm's threshold is on its expression, which is not judged here; its
// window and its actions are. notifiers are the composite alarms that
// notify for an alarm without actions of its own.
func alarmProblem(a cwtypes.MetricAlarm, notifiers map[string]string) string {
	th := aws.ToFloat64(a.Threshold)
	fires := cwapi.IsMath(a) || (a.ComparisonOperator == cwtypes.ComparisonOperatorGreaterThanThreshold && th < 1) ||
		(a.ComparisonOperator == cwtypes.ComparisonOperatorGreaterThanOrEqualToThreshold && th <= 1)
	periods := cmp.Or(aws.ToInt32(a.DatapointsToAlarm), aws.ToInt32(a.EvaluationPeriods))
	period := aws.ToInt32(a.Period)
	for _, q := range a.Metrics {
		if q.MetricStat != nil {
			period = max(period, aws.ToInt32(q.MetricStat.Period))
		}
	}
	window := time.Duration(period*max(periods, 1)) * time.Second
	switch {
	case !fires:
		return fmt.Sprintf("does not fire on one message (%s %g)", a.ComparisonOperator, th)
	case window > 5*time.Minute:
		return fmt.Sprintf("needs %s of breaching data, more than 5 minutes", window)
	case a.ActionsEnabled != nil && !*a.ActionsEnabled && notifiers[aws.ToString(a.AlarmName)] == "":
		return "has its actions disabled"
	case notifies(a, notifiers) == "":
		return "has no alarm action (nor a composite alarm over it with one): nobody is told"
	}
	return ""
}

// retentionFinding: a standard DLQ keeps a message only until its original
// enqueue time plus the DLQ's retention, so the DLQ must keep longer than
// the source. A FIFO DLQ resets the enqueue time on the move (SQS's
// "dead-letter queue retention"): its retention counts from the move, so
// a FIFO DLQ no longer than its source is no pitfall.
func retentionFinding(dlq, src *sqsapi.Queue) Finding {
	f := Finding{ID: IDDLQRetention, Queue: src.Name}
	f.Message = fmt.Sprintf("DLQ retention %s, source %s", days(dlq.Retention), days(src.Retention))
	fix := fmt.Sprintf("set %s's MessageRetentionPeriod to 1209600 (14 days)", dlq.Name)
	switch {
	case dlq.Retention > src.Retention:
		f.Status = Pass
	case dlq.FIFO:
		f.Status = Pass
		f.Message += ": a FIFO DLQ counts retention from the move, not from the first enqueue"
	default:
		f.Status, f.Fix = Fail, fix
		f.Message += ": a message expires by its original enqueue time, so the DLQ keeps almost nothing"
	}
	return f
}

func days(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

func lambdaFindings(src *sqsapi.Queue, ms []lambdaapi.Mapping, known bool) []Finding {
	if !known {
		return []Finding{{ID: IDVisibilityLambda, Status: Warn, Queue: src.Name,
			Message: "Lambda event source mappings unknown: lambda:ListEventSourceMappings was refused",
			Fix:     "let this role call lambda:ListEventSourceMappings and lambda:GetFunctionConfiguration (docs/iam.md), then run mfdlq check again"}}
	}
	if len(ms) == 0 {
		return []Finding{{ID: IDVisibilityLambda, Status: Skip, Queue: src.Name,
			Message: "no Lambda event source mapping reads this queue"}}
	}
	var out []Finding
	vis := int64(src.Visibility.Seconds())
	for _, m := range ms {
		v, text := lambdaapi.JudgeVisibility(vis, m.FunctionTimeout)
		f := Finding{ID: IDVisibilityLambda, Status: visibilityStatus[v], Queue: src.Name, Message: m.Function + ": " + text}
		if f.Status == Fail || f.Status == Warn {
			f.Fix = fmt.Sprintf("set %s's VisibilityTimeout to %d (6× %ds)", src.Name, 6**m.FunctionTimeout, *m.FunctionTimeout)
		}
		out = append(out, f)
	}
	return out
}

// visibilityStatus grades the visibility against the function's timeout.
var visibilityStatus = map[lambdaapi.Visibility]Status{
	lambdaapi.VisibilityUnknown: Skip, lambdaapi.VisibilityShort: Fail,
	lambdaapi.VisibilityLow: Warn, lambdaapi.VisibilityOK: Pass,
}

func readTimeoutFinding(src *sqsapi.Queue, read time.Duration) Finding {
	f := Finding{ID: IDVisibilityRead, Queue: src.Name}
	switch {
	case read == 0:
		f.Status, f.Message = Skip, "no client read timeout given (--read-timeout)"
	case src.Visibility > read:
		f.Status, f.Message = Pass, fmt.Sprintf("visibility %s > read timeout %s", src.Visibility, read)
	default:
		f.Status, f.Message = Fail, fmt.Sprintf("visibility %s ≤ read timeout %s: a slow call outlives the message's invisibility and it is processed twice", src.Visibility, read)
		f.Fix = fmt.Sprintf("set %s's VisibilityTimeout above %d", src.Name, int(read.Seconds()))
	}
	return f
}

func receiveCountFinding(src *sqsapi.Queue) Finding {
	f := Finding{ID: IDMaxReceiveCount, Queue: src.Name}
	n := maxReceive(src)
	f.Message = fmt.Sprintf("maxReceiveCount %d", n)
	if n <= 1 {
		f.Status, f.Fix = Fail, fmt.Sprintf("set %s's maxReceiveCount to 3-5: with 1, a single transient error sends a message to the DLQ", src.Name)
		return f
	}
	f.Status = Pass
	return f
}

func attemptsFinding(src *sqsapi.Queue, sdk, workflow int) Finding {
	n := maxReceive(src)
	total := sdk * max(n, 1) * workflow
	f := Finding{ID: IDAttemptsPerDepend, Queue: src.Name,
		Message: fmt.Sprintf("worst case %d calls per message to a failing dependency (SDK %d × maxReceiveCount %d × workflow %d)", total, sdk, n, workflow)}
	if total <= MaxAttemptsPerDependency {
		f.Status = Pass
		return f
	}
	f.Status = Warn
	f.Fix = fmt.Sprintf("bring it to %d or less: lower maxReceiveCount or the SDK's max attempts (--sdk-attempts/--workflow-attempts tell mfdlq what it cannot see)", MaxAttemptsPerDependency)
	return f
}

func maxReceive(q *sqsapi.Queue) int {
	if q.RedrivePolicy == nil {
		return 0
	}
	return q.RedrivePolicy.MaxReceiveCount
}
