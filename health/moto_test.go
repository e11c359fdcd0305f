package health

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

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/compositealarms"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// local is the SDK's CloudWatch client, as mfdlq configures it, at the
// composite-alarm stand-in in front of the test's moto (metric alarms and
// SetAlarmState are moto's).
func local(t *testing.T) (*compositealarms.Server, *cloudwatch.Client) {
	t.Helper()
	s, err := compositealarms.New(localaws.Endpoint(t))
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

func metricAlarm(t *testing.T, cw *cloudwatch.Client, name, state string) {
	t.Helper()
	ctx := context.Background()
	if _, err := cw.PutMetricAlarm(ctx, &cloudwatch.PutMetricAlarmInput{
		AlarmName: aws.String(name), Namespace: aws.String("AWS/ApiGateway"), MetricName: aws.String("5XXError"),
		Dimensions: []types.Dimension{{Name: aws.String("ApiName"), Value: aws.String("payment-gateway")}},
		Statistic:  types.StatisticSum, Period: aws.Int32(60), EvaluationPeriods: aws.Int32(1), Threshold: aws.Float64(5),
		ComparisonOperator: types.ComparisonOperatorGreaterThanThreshold,
	}); err != nil {
		t.Fatal(err)
	}
	setAlarm(t, cw, name, state)
}

func setAlarm(t *testing.T, cw *cloudwatch.Client, name, state string) {
	t.Helper()
	if _, err := cw.SetAlarmState(context.Background(), &cloudwatch.SetAlarmStateInput{
		AlarmName: aws.String(name), StateValue: types.StateValue(state), StateReason: aws.String("Threshold Crossed: 1 datapoint [12.0] was greater than the threshold (5.0)"),
	}); err != nil {
		t.Error(err)
	}
}

// The case on moto, on an injected clock: gateway-5xx in ALARM,
// --for 2m; the wait reads it, it turns OK at minute 3 (SetAlarmState),
// and the wait ends two minutes later, not before — a composite alarm
// over it (the stand-in) waited on together with it.
func TestWaitOnMoto(t *testing.T) {
	_, cw := local(t)
	gw, comp := localaws.UniqueName("gateway-5xx"), localaws.UniqueName("payments-healthy")
	metricAlarm(t, cw, gw, StateAlarm)
	if _, err := cw.PutCompositeAlarm(context.Background(), &cloudwatch.PutCompositeAlarmInput{
		AlarmName: aws.String(comp), AlarmRule: aws.String(`ALARM("` + gw + `")`)}); err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC()
	c := &fakeClock{now: start}
	c.at(start.Add(3*time.Minute), func() { setAlarm(t, cw, gw, StateOK) })
	g := New(cw, Options{Alarms: []string{gw, comp}, For: 2 * time.Minute}, c)
	first, err := g.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if first[0].State != StateAlarm || first[0].Type != TypeMetric || first[1].Type != TypeComposite || first[1].State != StateAlarm {
		t.Fatalf("check: %+v", first)
	}
	var reads []Status
	if err := g.Wait(context.Background(), start, func(s Status) { reads = append(reads, s) }); err != nil {
		t.Fatal(err)
	}
	ended := c.Now().Sub(start)
	if ended < 5*time.Minute || ended > 5*time.Minute+PollWait {
		t.Fatalf("wait ended at +%s, want +5m (OK at +3m for 2m)", ended)
	}
	for _, r := range reads[:len(reads)-1] {
		if r.Ready {
			t.Fatalf("ready before the end at +%s", r.Time.Sub(start))
		}
	}
	if last := reads[len(reads)-1]; !last.Ready || last.Alarms[1].State != StateOK {
		t.Fatalf("last read %+v", last)
	}
}

// During a move, a watch sees the alarm leave OK within one PollWatch.
func TestWatchOnMoto(t *testing.T) {
	_, cw := local(t)
	gw := localaws.UniqueName("gateway-5xx")
	metricAlarm(t, cw, gw, StateOK)
	start := time.Now().UTC()
	c := &fakeClock{now: start}
	c.at(start.Add(20*time.Second), func() { setAlarm(t, cw, gw, StateAlarm) })
	b := <-New(cw, Options{Alarms: []string{gw}}, c).Watch(context.Background(), nil)
	if b.Alarm != gw || b.State != StateAlarm || b.Time.Sub(start) > 20*time.Second+PollWatch {
		t.Fatalf("break %+v at +%s", b, b.Time.Sub(start))
	}
}

// A missing alarm is a NotFoundError before any wait; a role that may not
// read composite alarms gets a DeniedError.
func TestRefusalsOnMoto(t *testing.T) {
	s, cw := local(t)
	gw := localaws.UniqueName("gateway-5xx")
	metricAlarm(t, cw, gw, StateOK)
	_, err := New(cw, Options{Alarms: []string{gw, "gateway-5xxx"}}, nil).Check(context.Background())
	var nf *NotFoundError
	if !errors.As(err, &nf) || len(nf.Names) != 1 || nf.Names[0] != "gateway-5xxx" {
		t.Fatalf("err %v, want not found gateway-5xxx", err)
	}
	s.Deny("DescribeAlarms", true)
	err = New(cw, Options{Alarms: []string{gw}}, nil).Wait(context.Background(), time.Now(), nil)
	var de *DeniedError
	if !errors.As(err, &de) {
		t.Fatalf("err %v, want DeniedError", err)
	}
}

// An alarm set OK again while OK (CloudWatch re-confirming it) does not
// restart its streak: the streak counts from StateTransitionedTimestamp,
// which the stand-in keeps as CloudWatch does.
func TestReconfirmedOKKeepsTheStreakOnMoto(t *testing.T) {
	_, cw := local(t)
	gw := localaws.UniqueName("gateway-5xx")
	metricAlarm(t, cw, gw, StateOK)
	start := time.Now().UTC()
	c := &fakeClock{now: start}
	c.at(start.Add(time.Minute), func() { setAlarm(t, cw, gw, StateOK) })
	if err := New(cw, Options{Alarms: []string{gw}, For: 2 * time.Minute}, c).Wait(context.Background(), start, nil); err != nil {
		t.Fatal(err)
	}
	if ended := c.Now().Sub(start); ended > 2*time.Minute+PollWait {
		t.Fatalf("ended at +%s: the re-confirmation at +1m restarted the 2m", ended)
	}
}
