package cmd

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/compositealarms"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/redrive/lease"
)

// sqs-steady QUEUE DURATION asserts that QUEUE's depth (visible and in
// flight) does not change for DURATION: nothing is being sent to it.
func cmdSQSSteady(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: sqs-steady QUEUE DURATION")
	}
	d, err := time.ParseDuration(args[1])
	ts.Check(err)
	s := seeder(ts)
	ctx := context.Background()
	u, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	v0, f0, err := s.Depth(ctx, *u.QueueUrl)
	ts.Check(err)
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		v, f, err := s.Depth(ctx, *u.QueueUrl)
		ts.Check(err)
		if v != v0 || f != f0 {
			ts.Fatalf("%s went from %d visible, %d in flight to %d, %d within %s", args[0], v0, f0, v, f, d)
		}
	}
	ts.Logf("%s: %d visible, %d in flight for %s", args[0], v0, f0, d)
}

// file-wait FILE REGEXP TIMEOUT waits until FILE (in the script's
// directory) has a line matching REGEXP: a background command got there.
func cmdFileWait(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: file-wait FILE REGEXP TIMEOUT")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	limit, err := time.ParseDuration(args[2])
	ts.Check(err)
	for end := time.Now().Add(limit); ; time.Sleep(100 * time.Millisecond) {
		b, _ := os.ReadFile(ts.MkAbs(args[0]))
		for _, l := range strings.Split(string(b), "\n") {
			if re.MatchString(l) {
				return
			}
		}
		if time.Now().After(end) {
			// What the file did hold says which way the run went.
			ts.Logf("%s holds:\n%s", args[0], b[max(0, len(b)-4000):])
			// And where a background mfdlq is: its goroutines (SIGQUIT
			// makes the Go runtime print them on its stderr, which the
			// script's failure shows).
			if n := quitChildren("mfdlq"); n > 0 {
				ts.Logf("sent SIGQUIT to %d background mfdlq: its stacks are in its [stderr] below", n)
				time.Sleep(time.Second)
			}
			ts.Fatalf("%s has no line matching %s after %s", args[0], args[1], limit)
		}
	}
}

// lease-says QUEUE REGEXP asserts that QUEUE's lease tag matches REGEXP.
func cmdLeaseSays(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: lease-says QUEUE REGEXP")
	}
	ctx := context.Background()
	s := seeder(ts)
	u, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	out, err := s.SQS.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: u.QueueUrl})
	ts.Check(err)
	if v := out.Tags[lease.Tag]; !regexp.MustCompile(args[1]).MatchString(v) {
		ts.Fatalf("%s's lease tag %q does not match %s", args[0], v, args[1])
	}
}

// scriptAlarms is the CloudWatch client of the alarm commands: at the
// alarm stand-in when the script started one (alarm-standin), else moto.
func scriptAlarms(ts *testscript.TestScript) *cloudwatch.Client {
	cfg := scriptConfig(ts)
	if ep := ts.Getenv("AWS_ENDPOINT_URL_CLOUDWATCH"); ep != "" {
		cfg.BaseEndpoint = aws.String(ep)
	}
	return cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch)
}

// alarm-standin starts the alarm stand-in (internal/compositealarms) in
// front of moto and points mfdlq and the alarm commands at it
// (AWS_ENDPOINT_URL_CLOUDWATCH): composite alarms, and metric alarms'
// transition times as CloudWatch keeps them.
func cmdAlarmStandin(ts *testscript.TestScript, neg bool, args []string) {
	ep := os.Getenv("AWS_ENDPOINT_URL")
	if ep == "" {
		ep = os.Getenv(localaws.EnvEndpoint)
	}
	s, err := compositealarms.New(ep)
	ts.Check(err)
	hs := httptest.NewServer(s)
	ts.Defer(hs.Close)
	ts.Setenv("AWS_ENDPOINT_URL_CLOUDWATCH", hs.URL)
}

// alarm-put NAME STATE creates a metric alarm (a gateway's 5XX count) and
// sets its state.
func cmdAlarmPut(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: alarm-put NAME STATE")
	}
	_, err := scriptAlarms(ts).PutMetricAlarm(context.Background(), &cloudwatch.PutMetricAlarmInput{
		AlarmName: aws.String(args[0]), Namespace: aws.String("AWS/ApiGateway"), MetricName: aws.String("5XXError"),
		Dimensions: []cwtypes.Dimension{{Name: aws.String("ApiName"), Value: aws.String("payment-gateway")}},
		Statistic:  cwtypes.StatisticSum, Period: aws.Int32(60), EvaluationPeriods: aws.Int32(1), Threshold: aws.Float64(5),
		ComparisonOperator: cwtypes.ComparisonOperatorGreaterThanThreshold,
	})
	ts.Check(err)
	cmdAlarmSet(ts, neg, args)
}

// alarm-set NAME STATE sets an alarm's state (SetAlarmState).
func cmdAlarmSet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: alarm-set NAME STATE")
	}
	_, err := scriptAlarms(ts).SetAlarmState(context.Background(), &cloudwatch.SetAlarmStateInput{
		AlarmName: aws.String(args[0]), StateValue: cwtypes.StateValue(args[1]), StateReason: aws.String("set by the script"),
	})
	ts.Check(err)
}

// alarm-silent NAME creates a metric alarm that treats missing data as
// notBreaching, on a metric of its own (named NAME: moto matches metrics
// by name and dimensions), and sets it OK as CloudWatch does when nothing
// reports: the reason says no datapoints, StateReasonData holds none.
func cmdAlarmSilent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: alarm-silent NAME")
	}
	cw := scriptAlarms(ts)
	_, err := cw.PutMetricAlarm(context.Background(), &cloudwatch.PutMetricAlarmInput{
		AlarmName: aws.String(args[0]), Namespace: aws.String("MFDLQTest"), MetricName: aws.String(args[0]),
		Statistic: cwtypes.StatisticSum, Period: aws.Int32(60), EvaluationPeriods: aws.Int32(1), Threshold: aws.Float64(5),
		ComparisonOperator: cwtypes.ComparisonOperatorGreaterThanThreshold, TreatMissingData: aws.String("notBreaching"),
	})
	ts.Check(err)
	_, err = cw.SetAlarmState(context.Background(), &cloudwatch.SetAlarmStateInput{AlarmName: aws.String(args[0]), StateValue: cwtypes.StateValueOk,
		StateReason:     aws.String("Threshold Crossed: no datapoints were received for 1 period and 1 missing datapoint was treated as [NonBreaching]."),
		StateReasonData: aws.String(`{"version":"1.0","queryDate":"2026-12-07T02:10:00.000+0000","statistic":"Sum","period":60,"recentDatapoints":[],"threshold":5.0}`)})
	ts.Check(err)
}

// alarm-datum NAME puts a datapoint (0, now) on alarm-silent NAME's metric.
func cmdAlarmDatum(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: alarm-datum NAME")
	}
	_, err := scriptAlarms(ts).PutMetricData(context.Background(), &cloudwatch.PutMetricDataInput{Namespace: aws.String("MFDLQTest"),
		MetricData: []cwtypes.MetricDatum{{MetricName: aws.String(args[0]), Timestamp: aws.Time(time.Now()), Value: aws.Float64(0)}}})
	ts.Check(err)
}

// composite-put NAME RULE creates a composite alarm on the stand-in.
func cmdCompositePut(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || ts.Getenv("AWS_ENDPOINT_URL_CLOUDWATCH") == "" {
		ts.Fatalf("usage: alarm-standin, then composite-put NAME RULE")
	}
	_, err := scriptAlarms(ts).PutCompositeAlarm(context.Background(), &cloudwatch.PutCompositeAlarmInput{
		AlarmName: aws.String(args[0]), AlarmRule: aws.String(args[1])})
	ts.Check(err)
}

// quitChildren sends SIGQUIT to this process's children named name and
// returns how many it signalled (Linux /proc; none elsewhere).
func quitChildren(name string) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	n := 0
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || close < open {
			continue
		}
		fields := strings.Fields(string(b[close+1:]))
		if string(b[open+1:close]) != name || len(fields) < 2 || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b[:open]))); err == nil && syscall.Kill(pid, syscall.SIGQUIT) == nil {
			n++
		}
	}
	return n
}
