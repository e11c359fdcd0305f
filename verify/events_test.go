package verify

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	cwltypes "github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/mfdlq/mfdlq/internal/lambdainvoke"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// busyFunction is a function (moto) behind the Invoke stand-in, which
// writes each invocation's lines to the local CloudWatch Logs as Lambda's
// Python runtime does; a payload holding "boom" raises. It has traffic of
// its own already: 5 events that ran and 3 that failed.
func busyFunction(t *testing.T) (invoke func(payload string) string, logs *cloudwatchlogs.Client, name string) {
	t.Helper()
	ctx := context.Background()
	cfg := localaws.Config(t)
	name = localaws.UniqueName("fn")
	if _, err := localaws.CreateFunction(ctx, cfg, name, localaws.HandlerZip("None")); err != nil {
		t.Fatal(err)
	}
	srv, err := lambdainvoke.New(localaws.Endpoint(t), lambda.NewFromConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	logs = cloudwatchlogs.NewFromConfig(cfg)
	srv.Logs = logs
	srv.Fails = func(p []byte) string {
		if strings.Contains(string(p), "boom") {
			return "boom: the payment service answered 503"
		}
		return ""
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	c := lambda.NewFromConfig(cfg, func(o *lambda.Options) { o.BaseEndpoint = aws.String(hs.URL) })
	invoke = func(payload string) string {
		_, err := c.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String(name), InvocationType: ltypes.InvocationTypeEvent, Payload: []byte(payload)})
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range srv.Invocations() {
			if string(inv.Payload) == payload {
				return inv.RequestID
			}
		}
		t.Fatalf("%s not recorded", payload)
		return ""
	}
	for i := range 5 {
		invoke(fmt.Sprintf(`{"own":%d}`, i))
	}
	for i := range 3 {
		invoke(fmt.Sprintf(`{"own":%d,"boom":true}`, i+5))
	}
	return invoke, logs, name
}

// watchFunction runs verify's watch over a redrive of the events with
// request ids rids to the function: one look (--wait 0), an empty DLQ.
func watchFunction(t *testing.T, logs *cloudwatchlogs.Client, name string, moved int, rids []string) Result {
	t.Helper()
	ctx := context.Background()
	cfg := localaws.Config(t)
	dlqURL, err := localaws.NewSeeder(cfg).CreateQueue(ctx, name+"-dlq", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sqsapi.New(cfg)
	dlq := &sqsapi.Queue{Name: name + "-dlq", URL: dlqURL}
	start := time.Now().Add(-time.Minute)
	w := LambdaReturnWindow(start.Add(time.Second), 3*time.Second, 2, 6*time.Hour, "Lambda's default")
	w.LogGroup = LogGroupOf(name, "")
	rec := Redriven{Target: "lambda", DestQueue: "lambda:" + name, Moved: moved, StartedAt: start, EndedAt: start.Add(time.Second), ReturnWindow: w}
	for _, id := range rids {
		rec.Sent = append(rec.Sent, Sent{DestMessageID: id, SentAt: start})
	}
	watch := Watch{SQS: c, DLQ: dlq, Dest: &sqsapi.Queue{Name: "lambda:" + name}, Rec: rec, Logs: logs,
		Wait: 0, Interval: time.Second, Now: time.Now, Warn: func(string, ...any) {}}
	res, err := watch.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// verify of a redrive to a function counts the redriven events themselves,
// found in the function's logs by their Invoke request ids (the journal
// holds them): the function's own three failures do not fail it (the
// whole function's Errors did), and every redriven event that ran clean
// passes it at once, inside Lambda's return window.
func TestVerifyFunctionByItsOwnEvents(t *testing.T) {
	invoke, logs, name := busyFunction(t)
	var rids []string
	for i := range 4 {
		rids = append(rids, invoke(fmt.Sprintf(`{"order_id":"o-%d"}`, i)))
	}
	res := watchFunction(t, logs, name, 4, rids)
	if res.Verdict != Pass || !strings.Contains(strings.Join(res.Reasons, "\n"), "every redriven event ran: 4 of 4 request ids end with a REPORT line in /aws/lambda/"+name) {
		t.Fatalf("%s: %q", res.Verdict, res.Reasons)
	}
	if ev := res.Last.Events; ev == nil || ev.Ran != 4 || len(ev.Failed) != 0 {
		t.Fatalf("events %+v", res.Last.Events)
	}
}

// One redriven event that raises fails verify, named by its request id and
// its line (a Python Traceback names no request id: its stream's START
// does).
func TestVerifyFunctionRedrivenEventFails(t *testing.T) {
	invoke, logs, name := busyFunction(t)
	rids := []string{invoke(`{"order_id":"o-1"}`), invoke(`{"order_id":"o-2","boom":true}`)}
	res := watchFunction(t, logs, name, 2, rids)
	want := fmt.Sprintf("1 redriven event of 2 failed in lambda:%s (request id %s; its line in /aws/lambda/%s: \"[ERROR] RuntimeError: boom: the payment service answered 503", name, rids[1], name)
	if res.Verdict != Fail || !strings.Contains(res.Reasons[0], want) {
		t.Fatalf("%s: %q\nwant %q", res.Verdict, res.Reasons, want)
	}
}

// A busy function's invocations reach any count without one redriven event
// having run (the whole function's Invocations passed it): the redriven
// request ids are not in its logs yet, so it is not proven.
func TestVerifyBusyFunctionWithoutTheRedrivenEventsNotProven(t *testing.T) {
	_, logs, name := busyFunction(t)
	rids := []string{"0f9c2a4e-5b1d-4e8a-9c3f-2d7e6b1a0c91", "7a1e5c3d-2b4f-4a6e-8d9c-1f3b5a7c9e02"}
	res := watchFunction(t, logs, name, 2, rids)
	if res.Verdict != NotProven || !strings.Contains(strings.Join(res.Reasons, "\n"), "2 of 2 redriven events have no REPORT line in /aws/lambda/"+name+" yet") || res.ToProve == "" {
		t.Fatalf("%s: %q", res.Verdict, res.Reasons)
	}
}

// fakeLogs answers FilterLogEvents with lines, one page, whatever the
// pattern (as moto does).
type fakeLogs []cwlLine

type cwlLine struct {
	stream string
	ms     int64
	msg    string
}

func (f fakeLogs) FilterLogEvents(_ context.Context, in *cloudwatchlogs.FilterLogEventsInput, _ ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.FilterLogEventsOutput, error) {
	out := &cloudwatchlogs.FilterLogEventsOutput{}
	for _, l := range f {
		out.Events = append(out.Events, cwltypes.FilteredLogEvent{LogStreamName: aws.String(l.stream), Timestamp: aws.Int64(l.ms), Message: aws.String(l.msg)})
	}
	return out, nil
}

// The lines each runtime writes: a Node Invoke Error naming the request
// id, a timeout, a JSON platform.report with its status, a retry that ran
// after a failed attempt, a handled error the function logs (its own
// business, also with its trace: logger.exception), and another event's
// failure in the same stream.
func TestReadEventsLines(t *testing.T) {
	const (
		a = "11111111-1111-4111-8111-111111111111" // Node, fails
		b = "22222222-2222-4222-8222-222222222222" // times out
		c = "33333333-3333-4333-8333-333333333333" // JSON report, status error
		d = "44444444-4444-4444-8444-444444444444" // fails, then its retry runs
		e = "55555555-5555-4555-8555-555555555555" // logs an ERROR line, runs
		g = "77777777-7777-4777-8777-777777777777" // logs a handled exception's trace, runs
		f = "66666666-6666-4666-8666-666666666666" // never seen
		x = "99999999-9999-4999-8999-999999999999" // not redriven: fails
	)
	logs := fakeLogs{
		{"s1", 1, "START RequestId: " + a + " Version: $LATEST"},
		{"s1", 2, "2026-03-01T03:00:00.002Z\t" + a + "\tERROR\tInvoke Error \t{\"errorType\":\"Error\",\"errorMessage\":\"boom\"}"},
		{"s1", 3, "END RequestId: " + a},
		{"s1", 4, "REPORT RequestId: " + a + "\tDuration: 2.00 ms"},
		{"s1", 5, "START RequestId: " + x + " Version: $LATEST"},
		{"s1", 6, "[ERROR] RuntimeError: not ours\nTraceback (most recent call last):"},
		{"s1", 7, "REPORT RequestId: " + x + "\tDuration: 2.00 ms"},
		{"s2", 1, "START RequestId: " + b + " Version: $LATEST"},
		{"s2", 3001, "2026-03-01T03:00:03.001Z " + b + " Task timed out after 3.00 seconds"},
		{"s2", 3002, "END RequestId: " + b},
		{"s2", 3003, "REPORT RequestId: " + b + "\tDuration: 3000.00 ms\tStatus: timeout"},
		{"s3", 1, `{"time":"2026-03-01T03:00:00.001Z","type":"platform.start","record":{"requestId":"` + c + `"}}`},
		{"s3", 2, `{"time":"2026-03-01T03:00:00.002Z","type":"platform.report","record":{"requestId":"` + c + `","status":"error"}}`},
		{"s4", 1, "START RequestId: " + d + " Version: $LATEST"},
		{"s4", 2, "[ERROR] RuntimeError: boom\nTraceback (most recent call last):"},
		{"s4", 3, "REPORT RequestId: " + d + "\tDuration: 2.00 ms"},
		{"s4", 60003, "START RequestId: " + d + " Version: $LATEST"},
		{"s4", 60004, "REPORT RequestId: " + d + "\tDuration: 2.00 ms"},
		{"s5", 1, "START RequestId: " + e + " Version: $LATEST"},
		{"s5", 2, "[ERROR]\t2026-03-01T03:00:00.002Z\t" + e + "\tpayment declined, order parked"},
		{"s5", 3, "REPORT RequestId: " + e + "\tDuration: 2.00 ms"},
		{"s6", 1, "START RequestId: " + g + " Version: $LATEST"},
		{"s6", 2, "[ERROR]\t2026-03-01T03:00:00.002Z\t" + g + "\tcache unreachable, read the table\nTraceback (most recent call last):\n  File \"/var/task/app.py\", line 9, in handler\nConnectionError: timed out"},
		{"s6", 3, "REPORT RequestId: " + g + "\tDuration: 2.00 ms"},
	}
	run := ReadEvents(context.Background(), logs, "/aws/lambda/orders", EventQuery{IDs: []string{a, b, c, d, e, f, g}}, time.Unix(0, 0), time.Unix(1e9, 0))
	if run.Ran != 3 || run.Unseen != 1 || strings.Join(run.Failed, ",") != strings.Join([]string{a, b, c}, ",") || run.Err != "" {
		t.Fatalf("%+v", run)
	}
	if !strings.Contains(run.FailedLine, "Invoke Error") {
		t.Errorf("failed line %q", run.FailedLine)
	}
}

// A function that never ran has no log group yet: its redriven events are
// unseen (not proven), not an error to grant a permission for. Against the
// local CloudWatch Logs.
func TestReadEventsNoGroupYet(t *testing.T) {
	logs := cloudwatchlogs.NewFromConfig(localaws.Config(t))
	run := ReadEvents(context.Background(), logs, "/aws/lambda/"+localaws.UniqueName("never"), EventQuery{IDs: []string{"11111111-1111-4111-8111-111111111111"}}, time.Now().Add(-time.Hour), time.Now())
	if run.Err != "" || run.Unseen != 1 || run.Ran != 0 {
		t.Fatalf("%+v", run)
	}
}

// A big move's journal is compacted: its older sends are digests. The
// request ids in the function's lines are asked of them (the latest
// attempt's), and every moved event is sought: all ran passes, one never
// seen is not proven.
func TestVerifyFunctionFromACompactedJournal(t *testing.T) {
	const (
		a = "11111111-1111-4111-8111-111111111111"
		b = "22222222-2222-4222-8222-222222222222"
		c = "33333333-3333-4333-8333-333333333333" // the tail the journal still holds
		x = "99999999-9999-4999-8999-999999999999" // the function's own
	)
	ran := func(ids ...string) fakeLogs {
		var out fakeLogs
		for i, id := range ids {
			out = append(out, cwlLine{"s", int64(3 * i), "START RequestId: " + id + " Version: $LATEST"},
				cwlLine{"s", int64(3*i + 1), "REPORT RequestId: " + id + "\tDuration: 2.00 ms"})
		}
		return out
	}
	end := t0.Add(time.Minute)
	w := LambdaReturnWindow(end, 3*time.Second, 2, 6*time.Hour, "Lambda's default")
	w.LogGroup = "/aws/lambda/orders"
	rec := Redriven{Target: "lambda", DestQueue: "lambda:orders", Moved: 3, StartedAt: t0, EndedAt: end, ReturnWindow: w,
		Compacted: fakeCompacted{a: true, b: true}, Sent: []Sent{{DestMessageID: c, Attempt: 1}}}
	for _, tc := range []struct {
		name string
		logs fakeLogs
		pass bool
		want string
	}{
		{"all ran", ran(x, a, b, c), true, "every redriven event ran: 3 of 3 request ids"},
		{"one unseen", ran(x, a, c), false, "1 of 3 redriven events have no REPORT line in /aws/lambda/orders yet"},
	} {
		watch := Watch{Rec: rec, Logs: tc.logs, Now: func() time.Time { return end.Add(time.Minute) }}
		obs := Observation{At: end.Add(time.Minute)}
		watch.observeFunction(context.Background(), &obs)
		j := Judge(obs, rec)
		if j.Pass != tc.pass || !strings.Contains(strings.Join(j.Reasons, "\n"), tc.want) {
			t.Errorf("%s: %+v (events %+v)", tc.name, j, obs.Events)
		}
	}
}
