package alarmhistory

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

var now = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// standIn is the stand-in in front of the test's moto, and the SDK's
// CloudWatch client (awsQuery, as mfdlq configures it) pointed at it.
func standIn(t *testing.T) (*Server, *cloudwatch.Client) {
	t.Helper()
	s, err := New(localaws.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	s.Now = func() time.Time { return now }
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	cfg := localaws.Config(t)
	cfg.BaseEndpoint = aws.String(hs.URL)
	// The whole body read before decoding, and the SDK's retries, as
	// mfdlq's own CloudWatch client has them (cmd's readWholeBody): a 200
	// whose body read meets "use of closed network connection" is tried
	// again (4xx answers, which these tests expect, are not).
	return s, cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch, func(o *cloudwatch.Options) {
		o.APIOptions = append(o.APIOptions, sqsapi.AddReadWholeBody)
	})
}

func TestStateChangesPagedOldestFirstWithinRetention(t *testing.T) {
	s, cw := standIn(t)
	base := now.Add(-2 * time.Hour)
	for i := range 150 {
		s.Add(Item{AlarmName: "a", Timestamp: base.Add(time.Duration(i) * time.Second), Old: "OK", New: "ALARM", Reason: "Threshold Crossed"})
	}
	s.Add(Item{AlarmName: "gone", Timestamp: now.Add(-15 * 24 * time.Hour), Old: "OK", New: "ALARM"})
	s.Add(Item{AlarmName: "cfg", Timestamp: base, Type: "ConfigurationUpdate"})
	got, truncated, err := cwapi.StateChanges(context.Background(), cw, now.Add(-20*24*time.Hour), now)
	if err != nil || truncated {
		t.Fatal(err, truncated)
	}
	// 150 state updates in two pages of at most 100 (more calls only when
	// the SDK retried a page whose body read met the closed connection);
	// the one older than two weeks is gone and the configuration update is
	// not a state update.
	if len(got) != 150 || s.Calls() < 2 {
		t.Fatalf("%d changes in %d calls, want 150 in 2 pages", len(got), s.Calls())
	}
	if got[0].To != "ALARM" || got[0].From != "OK" || got[0].Reason != "Threshold Crossed" || !got[0].Time.Equal(base) || !got[149].Time.After(got[0].Time) {
		t.Fatalf("first %+v, last %+v", got[0], got[149])
	}
}

func TestRefusesWhatTheAPIRefuses(t *testing.T) {
	s, cw := standIn(t)
	for i := range 3 {
		s.Add(Item{AlarmName: "a", Timestamp: now.Add(-time.Duration(i) * time.Minute), Old: "OK", New: "ALARM"})
	}
	ctx := context.Background()
	code := func(err error) string {
		var api smithy.APIError
		if errors.As(err, &api) {
			return api.ErrorCode()
		}
		return "no API error: " + errors.Unwrap(err).Error()
	}
	if _, err := cw.DescribeAlarmHistory(ctx, &cloudwatch.DescribeAlarmHistoryInput{MaxRecords: aws.Int32(101)}); code(err) != "InvalidParameterValueException" {
		t.Errorf("MaxRecords 101: %v", err)
	}
	out, err := cw.DescribeAlarmHistory(ctx, &cloudwatch.DescribeAlarmHistoryInput{MaxRecords: aws.Int32(1)})
	if err != nil || out.NextToken == nil || len(out.AlarmHistoryItems) != 1 {
		t.Fatalf("page of 1: %v %+v", err, out)
	}
	if _, err := cw.DescribeAlarmHistory(ctx, &cloudwatch.DescribeAlarmHistoryInput{MaxRecords: aws.Int32(2), NextToken: out.NextToken}); code(err) != "InvalidNextToken" {
		t.Errorf("token with other parameters: %v", err)
	}
}

func TestPassesTheRestThroughToMoto(t *testing.T) {
	_, cw := standIn(t)
	ctx := context.Background()
	name := localaws.UniqueName("gateway-p99")
	if _, err := cw.PutMetricAlarm(ctx, &cloudwatch.PutMetricAlarmInput{
		AlarmName: aws.String(name), Namespace: aws.String("AWS/ApiGateway"), MetricName: aws.String("Latency"),
		Dimensions: []cwtypes.Dimension{{Name: aws.String("ApiName"), Value: aws.String("payment-gateway")}},
		Statistic:  cwtypes.StatisticAverage, Period: aws.Int32(60), EvaluationPeriods: aws.Int32(1), Threshold: aws.Float64(5000),
		ComparisonOperator: cwtypes.ComparisonOperatorGreaterThanThreshold,
	}); err != nil {
		t.Fatal(err)
	}
	m, err := cwapi.AlarmMetrics(ctx, cw, []string{name, "no-such-alarm"})
	if err != nil {
		t.Fatal(err)
	}
	if got := m[name]; got.Metric != "Latency" || got.Dimensions["ApiName"] != "payment-gateway" || len(m) != 1 {
		t.Fatalf("metrics %+v", m)
	}
}
