package check

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestAlarmProblem(t *testing.T) {
	good := cwtypes.MetricAlarm{
		ComparisonOperator: cwtypes.ComparisonOperatorGreaterThanThreshold, Threshold: aws.Float64(0),
		Period: aws.Int32(300), EvaluationPeriods: aws.Int32(1), AlarmActions: []string{"arn:aws:sns:us-east-1:1:x"},
	}
	if p := alarmProblem(good, nil); p != "" {
		t.Errorf("good alarm: %q", p)
	}
	high := good
	high.Threshold = aws.Float64(100)
	slow := good
	slow.EvaluationPeriods = aws.Int32(3)
	silent := good
	silent.AlarmActions = nil
	for name, a := range map[string]cwtypes.MetricAlarm{"does not fire": high, "15m0s": slow, "no alarm action": silent} {
		if p := alarmProblem(a, nil); !strings.Contains(p, name) {
			t.Errorf("alarmProblem = %q, want it to say %q", p, name)
		}
	}
}

func TestFindingsRetentionFIFOAndAttempts(t *testing.T) {
	dlq := &sqsapi.Queue{Name: "o-dlq.fifo", FIFO: true, Retention: 4 * 24 * time.Hour}
	src := &sqsapi.Queue{Name: "o.fifo", Retention: 4 * 24 * time.Hour, Visibility: 30 * time.Second,
		RedrivePolicy: &sqsapi.RedrivePolicy{MaxReceiveCount: 10}}
	fs := Findings(CheckInput{DLQ: dlq, Sources: []*sqsapi.Queue{src}, SDKAttempts: 3, WorkflowAttempts: 1,
		Mappings: map[string][]lambdaapi.Mapping{"o.fifo": nil}})
	status := map[string]Status{}
	for _, f := range fs {
		status[f.ID] = f.Status
	}
	want := map[string]Status{IDDLQAlarm: Fail, IDDLQRetention: Pass, IDVisibilityLambda: Skip, IDVisibilityRead: Skip, IDMaxReceiveCount: Pass, IDAttemptsPerDepend: Warn}
	for id, s := range want {
		if status[id] != s {
			t.Errorf("%s = %s, want %s", id, status[id], s)
		}
	}
	if Worst(fs) != Fail {
		t.Errorf("Worst = %s", Worst(fs))
	}
}

// What could not be read is "not verified" (warn), never "absent": no
// alarm would be a failure, no mapping a skip.
func TestFindingsWhenCloudWatchAndLambdaAreDenied(t *testing.T) {
	dlq := &sqsapi.Queue{Name: "o-dlq", Retention: 14 * 24 * time.Hour}
	src := &sqsapi.Queue{Name: "o", Retention: 4 * 24 * time.Hour, Visibility: 30 * time.Second,
		RedrivePolicy: &sqsapi.RedrivePolicy{MaxReceiveCount: 5}}
	fs := Findings(CheckInput{DLQ: dlq, Sources: []*sqsapi.Queue{src}, SDKAttempts: 1, WorkflowAttempts: 1,
		AlarmsUnknown: "AccessDenied on cloudwatch:DescribeAlarms"})
	byID := map[string]Finding{}
	for _, f := range fs {
		byID[f.ID] = f
	}
	if f := byID[IDDLQAlarm]; f.Status != Warn || !strings.Contains(f.Message, "AccessDenied") || !strings.Contains(f.Fix, "DescribeAlarms") {
		t.Errorf("alarm finding %+v", f)
	}
	if f := byID[IDVisibilityLambda]; f.Status != Warn || !strings.Contains(f.Message, "unknown") || !strings.Contains(f.Fix, "ListEventSourceMappings") {
		t.Errorf("lambda finding %+v", f)
	}
	if Worst(fs) != Warn {
		t.Errorf("Worst = %s, want warn: nothing failed, two things not verified", Worst(fs))
	}
}

// A function whose failed asynchronous invocations land in the DLQ: where
// they go, a retry count of zero and a retention shorter than a weekend
// warn, and the DLQ then has a source although no queue names it.
func TestAsyncFindings(t *testing.T) {
	dlq := &sqsapi.Queue{Name: "fn-dlq", ARN: "arn:aws:sqs:us-east-1:1:fn-dlq", Retention: 2 * 24 * time.Hour}
	in := CheckInput{DLQ: dlq, AsyncFunctions: []lambdaapi.AsyncFunction{
		{Name: "orders", DeadLetter: true, MaxRetries: 2, MaxEventAge: 6 * time.Hour},
		{Name: "billing", OnFailure: true, MaxRetries: 0, MaxEventAge: time.Hour},
	}}
	got := map[string]Status{}
	for _, f := range asyncFindings(in) {
		got[f.ID+" "+f.Message[:strings.IndexAny(f.Message, ": ")]] = f.Status
	}
	want := map[string]Status{
		IDLambdaAsyncDLQ + " orders": Pass, IDLambdaAsyncRetries + " orders": Pass, IDDLQRetention + " DLQ": Warn,
		IDLambdaAsyncDLQ + " billing": Pass, IDLambdaAsyncRetries + " billing": Warn,
	}
	for k, s := range want {
		if got[k] != s {
			t.Errorf("%s: %q, want %q (all: %v)", k, got[k], s, got)
		}
	}
	for _, f := range Findings(in) {
		if f.ID == IDDLQHasSource {
			t.Errorf("a DLQ fed by functions was said to have no source: %+v", f)
		}
	}
}
