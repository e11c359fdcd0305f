package compositealarms

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// standIn is the stand-in in front of the test's moto and the SDK's
// CloudWatch client (awsQuery, reading whole bodies, as mfdlq's) at it.
func standIn(t *testing.T) (*Server, *cloudwatch.Client) {
	t.Helper()
	s, err := New(localaws.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	cfg := localaws.Config(t)
	cfg.BaseEndpoint = aws.String(hs.URL)
	return s, cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch, func(o *cloudwatch.Options) {
		o.APIOptions = append(o.APIOptions, sqsapi.AddReadWholeBody)
	})
}

func putMetric(t *testing.T, cw *cloudwatch.Client, name string) {
	t.Helper()
	if _, err := cw.PutMetricAlarm(context.Background(), &cloudwatch.PutMetricAlarmInput{
		AlarmName: aws.String(name), Namespace: aws.String("AWS/ApiGateway"), MetricName: aws.String("5XXError"),
		Statistic: types.StatisticSum, Period: aws.Int32(60), EvaluationPeriods: aws.Int32(1), Threshold: aws.Float64(5),
		ComparisonOperator: types.ComparisonOperatorGreaterThanThreshold,
	}); err != nil {
		t.Fatal(err)
	}
}

func setState(t *testing.T, cw *cloudwatch.Client, name, state string) {
	t.Helper()
	if _, err := cw.SetAlarmState(context.Background(), &cloudwatch.SetAlarmStateInput{
		AlarmName: aws.String(name), StateValue: types.StateValue(state), StateReason: aws.String("test"),
	}); err != nil {
		t.Fatal(err)
	}
}

func describe(t *testing.T, cw *cloudwatch.Client, in *cloudwatch.DescribeAlarmsInput) *cloudwatch.DescribeAlarmsOutput {
	t.Helper()
	out, err := cw.DescribeAlarms(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A composite alarm over two metric alarms follows them: created and
// judged OK, ALARM when one child is, OK again when both are; metric
// alarms stay moto's; composite ones come back only when AlarmTypes asks.
func TestCompositeFollowsItsChildren(t *testing.T) {
	s, cw := standIn(t)
	ctx := context.Background()
	a, b, c := localaws.UniqueName("gw-5xx"), localaws.UniqueName("gw-p99"), localaws.UniqueName("gateway")
	putMetric(t, cw, a)
	putMetric(t, cw, b)
	if _, err := cw.PutCompositeAlarm(ctx, &cloudwatch.PutCompositeAlarmInput{AlarmName: aws.String(c),
		AlarmRule: aws.String(`ALARM("` + a + `") OR ALARM(` + b + `)`)}); err != nil {
		t.Fatal(err)
	}
	names := []string{a, b, c}
	if out := describe(t, cw, &cloudwatch.DescribeAlarmsInput{AlarmNames: names}); len(out.MetricAlarms) != 2 || len(out.CompositeAlarms) != 0 {
		t.Fatalf("without AlarmTypes: %d metric, %d composite; want 2 and 0", len(out.MetricAlarms), len(out.CompositeAlarms))
	}
	both := &cloudwatch.DescribeAlarmsInput{AlarmNames: names, AlarmTypes: []types.AlarmType{types.AlarmTypeMetricAlarm, types.AlarmTypeCompositeAlarm}}
	state := func() (types.StateValue, time.Time) {
		out := describe(t, cw, both)
		if len(out.CompositeAlarms) != 1 || len(out.MetricAlarms) != 2 {
			t.Fatalf("%d metric, %d composite", len(out.MetricAlarms), len(out.CompositeAlarms))
		}
		return out.CompositeAlarms[0].StateValue, aws.ToTime(out.CompositeAlarms[0].StateTransitionedTimestamp)
	}
	if st, _ := state(); st != types.StateValueOk {
		t.Fatalf("new composite over two OK alarms: %s", st)
	}
	setState(t, cw, a, "ALARM")
	st, since := state()
	if st != types.StateValueAlarm {
		t.Fatalf("one child in ALARM: %s", st)
	}
	setState(t, cw, b, "ALARM")
	setState(t, cw, a, "OK")
	if st2, since2 := state(); st2 != types.StateValueAlarm || !since2.Equal(since) {
		t.Fatalf("still one child in ALARM: %s since %s, want ALARM since %s", st2, since2, since)
	}
	setState(t, cw, b, "OK")
	if st, since2 := state(); st != types.StateValueOk || !since2.After(since) {
		t.Fatalf("both children OK: %s since %s", st, since2)
	}
	if s.Calls("DescribeAlarms") < 5 {
		t.Fatalf("the stand-in answered %d DescribeAlarms", s.Calls("DescribeAlarms"))
	}
	// SetAlarmState on the composite holds until a child changes.
	setState(t, cw, c, "ALARM")
	if st, _ := state(); st != types.StateValueAlarm {
		t.Fatalf("after SetAlarmState ALARM: %s", st)
	}
	setState(t, cw, a, "OK")
	if st, _ := state(); st != types.StateValueOk {
		t.Fatalf("a child updated after SetAlarmState: %s, want re-judged OK", st)
	}
	if _, err := cw.DeleteAlarms(ctx, &cloudwatch.DeleteAlarmsInput{AlarmNames: []string{c, a}}); err != nil {
		t.Fatal(err)
	}
	if out := describe(t, cw, both); len(out.CompositeAlarms) != 0 || len(out.MetricAlarms) != 1 {
		t.Fatalf("after delete: %d metric, %d composite", len(out.MetricAlarms), len(out.CompositeAlarms))
	}
}

func code(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	if err == nil {
		return "no error"
	}
	return "no API error: " + err.Error()
}

// The codes are as the SDK names them: it maps the awsQuery codes
// (ValidationError, MissingParameter, InvalidParameterCombination) to its
// error shapes.
func TestRefusesWhatTheAPIRefuses(t *testing.T) {
	s, cw := standIn(t)
	ctx := context.Background()
	a := localaws.UniqueName("child")
	putMetric(t, cw, a)
	for _, tc := range []struct {
		what, rule, want string
	}{
		{"a missing child", `ALARM("no-such-alarm")`, "ValidationException"},
		{"a broken rule", `ALARM("` + a + `") AND`, "ValidationException"},
		{"no rule", ``, "MissingRequiredParameterException"},
	} {
		_, err := cw.PutCompositeAlarm(ctx, &cloudwatch.PutCompositeAlarmInput{AlarmName: aws.String(localaws.UniqueName("c")), AlarmRule: aws.String(tc.rule)})
		if got := code(err); got != tc.want {
			t.Errorf("%s: %s (%v), want %s", tc.what, got, err, tc.want)
		}
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = a
	}
	if _, err := cw.DescribeAlarms(ctx, &cloudwatch.DescribeAlarmsInput{AlarmNames: many}); code(err) != "ValidationException" {
		t.Errorf("101 AlarmNames: %v", err)
	}
	if _, err := cw.DescribeAlarms(ctx, &cloudwatch.DescribeAlarmsInput{AlarmNames: []string{a}, AlarmNamePrefix: aws.String("x")}); code(err) != "InvalidParameterCombinationException" {
		t.Errorf("names and prefix: %v", err)
	}
	if _, err := cw.DescribeAlarms(ctx, &cloudwatch.DescribeAlarmsInput{MaxRecords: aws.Int32(101)}); code(err) != "ValidationException" {
		t.Errorf("MaxRecords 101: %v", err)
	}
	// Pages of MaxRecords over both types, a token good only with the
	// same parameters.
	prefix := localaws.UniqueName("page")
	for i := range 3 {
		putMetric(t, cw, prefix+"-"+string(rune('a'+i)))
	}
	in := &cloudwatch.DescribeAlarmsInput{AlarmNamePrefix: aws.String(prefix), MaxRecords: aws.Int32(2)}
	first := describe(t, cw, in)
	if len(first.MetricAlarms) != 2 || first.NextToken == nil {
		t.Fatalf("first page: %d alarms, token %v", len(first.MetricAlarms), first.NextToken)
	}
	in.NextToken = first.NextToken
	if second := describe(t, cw, in); len(second.MetricAlarms) != 1 || second.NextToken != nil {
		t.Fatalf("second page: %d alarms, token %v", len(second.MetricAlarms), second.NextToken)
	}
	in.MaxRecords = aws.Int32(1)
	if _, err := cw.DescribeAlarms(ctx, in); code(err) != "InvalidNextToken" {
		t.Errorf("token with other parameters: %v", err)
	}
	s.Deny("DescribeAlarms", true)
	if _, err := cw.DescribeAlarms(ctx, &cloudwatch.DescribeAlarmsInput{}); code(err) != "AccessDenied" {
		t.Errorf("denied: %v", err)
	}
}

// Metric alarms as CloudWatch has them, where moto differs: a new one in
// INSUFFICIENT_DATA, an update keeping its state, a state set again
// unchanged keeping its transition time.
func TestMetricAlarmsAsCloudWatchHasThem(t *testing.T) {
	_, cw := standIn(t)
	a := localaws.UniqueName("gw")
	putMetric(t, cw, a)
	get := func() types.MetricAlarm {
		out := describe(t, cw, &cloudwatch.DescribeAlarmsInput{AlarmNames: []string{a}})
		if len(out.MetricAlarms) != 1 {
			t.Fatalf("%d alarms", len(out.MetricAlarms))
		}
		return out.MetricAlarms[0]
	}
	if st := get().StateValue; st != types.StateValueInsufficientData {
		t.Fatalf("new alarm in %s, want INSUFFICIENT_DATA", st)
	}
	setState(t, cw, a, "ALARM")
	first := aws.ToTime(get().StateTransitionedTimestamp)
	time.Sleep(20 * time.Millisecond)
	setState(t, cw, a, "ALARM")
	putMetric(t, cw, a) // an update
	got := get()
	if got.StateValue != types.StateValueAlarm || !aws.ToTime(got.StateTransitionedTimestamp).Equal(first) || !aws.ToTime(got.StateUpdatedTimestamp).After(first) {
		t.Fatalf("after ALARM again and an update: %s transitioned %v updated %v, want ALARM transitioned %v", got.StateValue,
			got.StateTransitionedTimestamp, got.StateUpdatedTimestamp, first)
	}
}
