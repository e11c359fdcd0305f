package health

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// silentAlarm makes a metric alarm on a metric of its own that treats
// missing data as notBreaching, and sets it OK the way CloudWatch does
// when nothing reports: the reason says no datapoints, StateReasonData
// holds none. moto never evaluates an alarm, so the state is set as
// production writes it.
func silentAlarm(t *testing.T, cw *cloudwatch.Client, name, ns, metric string, math bool) {
	t.Helper()
	ctx := context.Background()
	in := &cloudwatch.PutMetricAlarmInput{AlarmName: aws.String(name), EvaluationPeriods: aws.Int32(2), Threshold: aws.Float64(5),
		ComparisonOperator: types.ComparisonOperatorGreaterThanThreshold, TreatMissingData: aws.String(MissingNotBreaching)}
	dims := []types.Dimension{{Name: aws.String("ApiName"), Value: aws.String("payment-gateway")}}
	if math {
		in.Metrics = []types.MetricDataQuery{
			{Id: aws.String("errors"), ReturnData: aws.Bool(false), MetricStat: &types.MetricStat{Metric: &types.Metric{Namespace: aws.String(ns),
				MetricName: aws.String(metric), Dimensions: dims}, Period: aws.Int32(60), Stat: aws.String("Sum")}},
			{Id: aws.String("rate"), Expression: aws.String("errors * 100"), ReturnData: aws.Bool(true)},
		}
	} else {
		in.Namespace, in.MetricName, in.Dimensions = aws.String(ns), aws.String(metric), dims
		in.Statistic, in.Period = types.StatisticSum, aws.Int32(60)
	}
	if _, err := cw.PutMetricAlarm(ctx, in); err != nil {
		t.Fatal(err)
	}
	if _, err := cw.SetAlarmState(ctx, &cloudwatch.SetAlarmStateInput{AlarmName: aws.String(name), StateValue: types.StateValueOk,
		StateReason:     aws.String("Threshold Crossed: no datapoints were received for 2 periods and 2 missing datapoints were treated as [NonBreaching]."),
		StateReasonData: aws.String(`{"version":"1.0","queryDate":"2026-12-07T02:10:00.000+0000","statistic":"Sum","period":60,"recentDatapoints":[],"threshold":5.0}`),
	}); err != nil {
		t.Fatal(err)
	}
}

func putDatapoint(t *testing.T, cw *cloudwatch.Client, ns, metric string, at time.Time) {
	t.Helper()
	if _, err := cw.PutMetricData(context.Background(), &cloudwatch.PutMetricDataInput{Namespace: aws.String(ns), MetricData: []types.MetricDatum{{
		MetricName: aws.String(metric), Dimensions: []types.Dimension{{Name: aws.String("ApiName"), Value: aws.String("payment-gateway")}},
		Timestamp: aws.Time(at), Value: aws.Float64(0)}}}); err != nil {
		t.Fatal(err)
	}
}

// The case: the consumer is paused, so the gateway's alarm, which
// treats missing data as notBreaching, reads OK with no data at all. The
// wait does not count that OK (the plan says why), and counts from the
// first datapoint: a metric alarm and a metric-math one, on moto through
// the stand-in, on an injected clock.
func TestWaitDoesNotCountOKWithoutDataOnMoto(t *testing.T) {
	for _, math := range []bool{false, true} {
		t.Run(fmt.Sprint("math=", math), func(t *testing.T) {
			_, cw := local(t)
			gw := localaws.UniqueName("gateway-5xx")
			// moto matches a metric by name and dimensions, not namespace: a name
			// of its own keeps the other tests' datapoints out.
			ns, metric := "MFDLQTest", gw
			silentAlarm(t, cw, gw, ns, metric, math)
			start := time.Now().UTC()
			c := &fakeClock{now: start}
			c.at(start.Add(3*time.Minute), func() { putDatapoint(t, cw, ns, metric, start.Add(3*time.Minute)) })
			g := New(cw, Options{Alarms: []string{gw}, For: 2 * time.Minute}, c)
			first, err := g.Check(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if first[0].State != StateOK || first[0].Counts() || !strings.Contains(first[0].NoData, "notBreaching") || first[0].Left != 2*time.Minute {
				t.Fatalf("check: %+v: an OK without data must not count", first[0])
			}
			if d := first[0].Describe(start); !strings.Contains(d, "OK without data, not counted") {
				t.Errorf("describe %q", d)
			}
			if err := g.Wait(context.Background(), start, nil); err != nil {
				t.Fatal(err)
			}
			if ended := c.Now().Sub(start); ended < 5*time.Minute-PollWait || ended > 5*time.Minute+PollWait {
				t.Fatalf("wait ended at +%s, want about +5m (data from +3m, then 2m of OK)", ended)
			}
		})
	}
}

// A composite alarm is OK when ALARM() of its rule is false — also when
// the alarm it names is INSUFFICIENT_DATA. The wait does not count it
// until that alarm has data.
func TestWaitCompositeOverInsufficientDataOnMoto(t *testing.T) {
	_, cw := local(t)
	ctx := context.Background()
	gw, comp := localaws.UniqueName("gateway-5xx"), localaws.UniqueName("payments-healthy")
	metricAlarm(t, cw, gw, StateInsufficientData)
	if _, err := cw.PutCompositeAlarm(ctx, &cloudwatch.PutCompositeAlarmInput{
		AlarmName: aws.String(comp), AlarmRule: aws.String(`ALARM("` + gw + `")`)}); err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC()
	c := &fakeClock{now: start}
	c.at(start.Add(3*time.Minute), func() { setAlarm(t, cw, gw, StateOK) })
	g := New(cw, Options{Alarms: []string{comp}, For: 2 * time.Minute}, c)
	first, err := g.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first[0].State != StateOK || first[0].Counts() || !strings.Contains(first[0].NoData, "INSUFFICIENT_DATA") {
		t.Fatalf("check: %+v", first[0])
	}
	if err := g.Wait(ctx, start, nil); err != nil {
		t.Fatal(err)
	}
	if ended := c.Now().Sub(start); ended < 5*time.Minute-PollWait {
		t.Fatalf("wait ended at +%s: the composite's OK over INSUFFICIENT_DATA counted", ended)
	}
}

// StateReasonData that saw datapoints in the alarm's window is proof
// enough: no GetMetricData call. A metric that cannot be read proves
// nothing.
func TestDataProofFromReasonData(t *testing.T) {
	now := time.Date(2026, 12, 7, 2, 10, 0, 0, time.UTC)
	c := &fakeClock{now: now}
	f := newFakeCW(c)
	f.set("gw", StateOK)
	f.alarms["gw"].TreatMissingData = aws.String(MissingIgnore)
	f.alarms["gw"].Namespace, f.alarms["gw"].MetricName = aws.String("AWS/ApiGateway"), aws.String("5XXError")
	f.alarms["gw"].Period, f.alarms["gw"].EvaluationPeriods = aws.Int32(60), aws.Int32(1)
	f.alarms["gw"].StateReasonData = aws.String(`{"version":"1.0","queryDate":"2026-12-07T02:09:30.000+0000","recentDatapoints":[0.0]}`)
	got, err := New(f, Options{Alarms: []string{"gw"}}, c).Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Counts() || f.metricCalls != 0 {
		t.Fatalf("%+v, %d GetMetricData calls: a recent evaluation with data is proof", got[0], f.metricCalls)
	}
	// Three minutes later the evaluation is older than 2 periods: read
	// the metric, which has nothing.
	c.now = now.Add(3 * time.Minute)
	got, err = New(f, Options{Alarms: []string{"gw"}}, c).Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Counts() || f.metricCalls != 1 || !strings.Contains(got[0].NoData, "ignore") {
		t.Fatalf("%+v after %d calls", got[0], f.metricCalls)
	}
}

func TestRuleAlarms(t *testing.T) {
	got := ruleAlarms(`ALARM("a b") OR (OK(c) AND NOT INSUFFICIENT_DATA(arn:aws:cloudwatch:us-east-1:123456789012:alarm:d)) OR ALARM( "a b" ) OR ALARM('e')`)
	if strings.Join(got, "|") != "a b|c|d|e" {
		t.Fatalf("ruleAlarms = %q", got)
	}
}

// The first proof by datapoints floors the streak at the earliest one read
// (--for back): a metric with data all along counts its whole OK at once;
// one whose data resumed a minute ago counts from then, not from the
// alarm's older transition to OK.
func TestFirstProofFloorsTheStreakOnMoto(t *testing.T) {
	_, cw := local(t)
	steady, resumed := localaws.UniqueName("steady"), localaws.UniqueName("resumed")
	silentAlarm(t, cw, steady, "MFDLQTest", steady, false)
	silentAlarm(t, cw, resumed, "MFDLQTest", resumed, false)
	// Both alarms turned OK (without data) half an hour before now: their
	// own transition would make the streak whole.
	now := time.Now().UTC().Add(30 * time.Minute)
	for m := 20; m >= 0; m-- {
		putDatapoint(t, cw, "MFDLQTest", steady, now.Add(-time.Duration(m)*time.Minute))
	}
	putDatapoint(t, cw, "MFDLQTest", resumed, now.Add(-time.Minute))
	c := &fakeClock{now: now}
	got, err := New(cw, Options{Alarms: []string{steady, resumed}, For: 10 * time.Minute}, c).Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Counts() || got[0].Left > 0 {
		t.Errorf("steady data: %+v, want counted with nothing left", got[0])
	}
	if !got[1].Counts() || got[1].Left < 8*time.Minute || got[1].Left > 9*time.Minute+time.Second {
		t.Errorf("data since a minute: left %s, want about 9m (counted from the first datapoint)", got[1].Left)
	}
}
