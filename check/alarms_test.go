package check

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/compositealarms"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// cloudWatch is the SDK's CloudWatch client at the composite-alarm
// stand-in in front of moto (moto has no composite alarms).
func cloudWatch(t *testing.T) *cloudwatch.Client {
	t.Helper()
	s, err := compositealarms.New(localaws.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	cfg := localaws.Config(t)
	cfg.BaseEndpoint = aws.String(hs.URL)
	return cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch)
}

func depth(dlq string) *cwtypes.Metric {
	return &cwtypes.Metric{Namespace: aws.String(cwapi.Namespace), MetricName: aws.String(cwapi.MetricVisible),
		Dimensions: []cwtypes.Dimension{{Name: aws.String(cwapi.DimensionQueueName), Value: aws.String(dlq)}}}
}

// judgeAlarms lists the region's alarms as check does and judges dlq's.
func judgeAlarms(t *testing.T, cw *cloudwatch.Client, dlq string) Finding {
	t.Helper()
	r := ReadAlarms(context.Background(), cw)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	in := CheckInput{DLQ: &sqsapi.Queue{Name: dlq}}
	r.Fill(&in)
	return alarmFinding(in)
}

// A DLQ watched by a metric-math alarm is watched: DescribeAlarmsForMetric
// returns no math alarm (the old read said "no alarm", ls counted it). An
// alarm without actions of its own that a composite alarm with actions
// names tells someone through it; one without either tells no one.
func TestDLQAlarmMathAndComposite(t *testing.T) {
	ctx := context.Background()
	cw := cloudWatch(t)
	dlq := localaws.UniqueName("orders-dlq")
	math := dlq + "-math"
	if _, err := cw.PutMetricAlarm(ctx, &cloudwatch.PutMetricAlarmInput{AlarmName: aws.String(math), EvaluationPeriods: aws.Int32(1),
		Threshold: aws.Float64(0), ComparisonOperator: cwtypes.ComparisonOperatorGreaterThanThreshold,
		Metrics: []cwtypes.MetricDataQuery{
			{Id: aws.String("visible"), ReturnData: aws.Bool(false), MetricStat: &cwtypes.MetricStat{Metric: depth(dlq), Period: aws.Int32(60), Stat: aws.String("Maximum")}},
			{Id: aws.String("total"), Expression: aws.String("FILL(visible, 0)"), ReturnData: aws.Bool(true)},
		}}); err != nil {
		t.Fatal(err)
	}
	if f := judgeAlarms(t, cw, dlq); f.Status != Warn || !strings.Contains(f.Message, "nobody is told") {
		t.Fatalf("a math alarm without actions: %+v", f)
	}
	if _, err := cw.PutCompositeAlarm(ctx, &cloudwatch.PutCompositeAlarmInput{AlarmName: aws.String(dlq + "-page"),
		AlarmRule: aws.String(`ALARM("` + math + `")`), AlarmActions: []string{"arn:aws:sns:us-east-1:123456789012:oncall"}}); err != nil {
		t.Fatal(err)
	}
	f := judgeAlarms(t, cw, dlq)
	if f.Status != Pass || !strings.Contains(f.Message, "metric-math alarm "+math) || !strings.Contains(f.Message, "through the composite alarm "+dlq+"-page") {
		t.Fatalf("a math alarm notifying through a composite: %+v", f)
	}
}

// An alarm in ALARM tells no one of a new message (its actions run on a
// change of state): check warns, where it passed.
func TestDLQAlarmStuckInAlarm(t *testing.T) {
	ctx := context.Background()
	cw := cloudWatch(t)
	dlq := localaws.UniqueName("orders-dlq")
	in := cwapi.DLQAlarmInput(dlq, "arn:aws:sns:us-east-1:123456789012:oncall")
	if _, err := cw.PutMetricAlarm(ctx, in); err != nil {
		t.Fatal(err)
	}
	if _, err := cw.SetAlarmState(ctx, &cloudwatch.SetAlarmStateInput{AlarmName: in.AlarmName, StateValue: cwtypes.StateValueOk, StateReason: aws.String("t")}); err != nil {
		t.Fatal(err)
	}
	if f := judgeAlarms(t, cw, dlq); f.Status != Pass {
		t.Fatalf("an OK alarm: %+v", f)
	}
	if _, err := cw.SetAlarmState(ctx, &cloudwatch.SetAlarmStateInput{AlarmName: in.AlarmName, StateValue: cwtypes.StateValueAlarm, StateReason: aws.String("t")}); err != nil {
		t.Fatal(err)
	}
	f := judgeAlarms(t, cw, dlq)
	if f.Status != Warn || !strings.Contains(f.Message, "is in ALARM since "+time.Now().UTC().Format("2006-01-02")) || !strings.Contains(f.Fix, "mfdlq contain") {
		t.Fatalf("an alarm stuck in ALARM: %+v", f)
	}
}

// A DLQ alarm without actions of its own that notifies only through a
// composite alarm already in ALARM for another of its alarms tells no one
// of the DLQ's first message: the composite's actions run when its state
// changes, and it does not (ALARM("dlq") OR ALARM("api") stays true).
// Check warns, where it passed; a composite in OK over it passes.
func TestDLQAlarmThroughAStuckComposite(t *testing.T) {
	ctx := context.Background()
	cw := cloudWatch(t)
	dlq := localaws.UniqueName("ledger-dlq")
	in := cwapi.DLQAlarmInput(dlq, "")
	in.AlarmActions = nil
	if _, err := cw.PutMetricAlarm(ctx, in); err != nil {
		t.Fatal(err)
	}
	api := dlq + "-api-5xx"
	if _, err := cw.PutMetricAlarm(ctx, &cloudwatch.PutMetricAlarmInput{AlarmName: aws.String(api), Namespace: aws.String("AWS/ApiGateway"), MetricName: aws.String("5XXError"),
		Statistic: cwtypes.StatisticSum, Period: aws.Int32(60), EvaluationPeriods: aws.Int32(1), Threshold: aws.Float64(5),
		ComparisonOperator: cwtypes.ComparisonOperatorGreaterThanThreshold}); err != nil {
		t.Fatal(err)
	}
	for name, state := range map[string]cwtypes.StateValue{aws.ToString(in.AlarmName): cwtypes.StateValueOk, api: cwtypes.StateValueOk} {
		if _, err := cw.SetAlarmState(ctx, &cloudwatch.SetAlarmStateInput{AlarmName: aws.String(name), StateValue: state, StateReason: aws.String("t")}); err != nil {
			t.Fatal(err)
		}
	}
	page := dlq + "-page"
	if _, err := cw.PutCompositeAlarm(ctx, &cloudwatch.PutCompositeAlarmInput{AlarmName: aws.String(page),
		AlarmRule: aws.String(`ALARM("` + aws.ToString(in.AlarmName) + `") OR ALARM("` + api + `")`), AlarmActions: []string{"arn:aws:sns:us-east-1:123456789012:oncall"}}); err != nil {
		t.Fatal(err)
	}
	if f := judgeAlarms(t, cw, dlq); f.Status != Pass || !strings.Contains(f.Message, "through the composite alarm "+page) {
		t.Fatalf("through a composite in OK: %+v", f)
	}
	if _, err := cw.SetAlarmState(ctx, &cloudwatch.SetAlarmStateInput{AlarmName: aws.String(api), StateValue: cwtypes.StateValueAlarm, StateReason: aws.String("t")}); err != nil {
		t.Fatal(err)
	}
	f := judgeAlarms(t, cw, dlq)
	if f.Status != Warn || !strings.Contains(f.Message, "notifies only through the composite alarm "+page+", which is in ALARM") || !strings.Contains(f.Fix, page) {
		t.Fatalf("through a composite stuck in ALARM: %+v", f)
	}
}
