package changes

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/trailapi"
)

var first = time.Date(2026, 11, 29, 22, 4, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return first.Add(d) }

func failureRange() Range {
	f, l := first, first.Add(20*time.Minute)
	return Range{From: first.Add(-30 * time.Minute), To: l.Add(30 * time.Minute), FirstFailure: &f, LastFailure: &l}
}

var rel = Resources{
	Queues: []string{"orders-dlq", "orders"}, Functions: []string{"orders-consumer"},
	Mappings: []string{"9f1c"}, Roles: []string{"orders-consumer-role"}, Keys: []string{"1234abcd-12ab-34cd-56ef-1234567890ab"},
}

func ev(name, source string, t time.Time, params map[string]string) trailapi.Event {
	return trailapi.Event{ID: name + t.Format("1504"), Name: name, Source: source, Time: t, User: "u", Parameters: params}
}

func TestPlainName(t *testing.T) {
	for in, want := range map[string]string{
		"UpdateFunctionCode20150331v2":          "UpdateFunctionCode",
		"UpdateFunctionConfiguration20150331v2": "UpdateFunctionConfiguration",
		"CreateEventSourceMapping20150331":      "CreateEventSourceMapping",
		"PutRolePolicy":                         "PutRolePolicy",
		"20150331":                              "20150331",
	} {
		if got := PlainName(in); got != want {
			t.Errorf("PlainName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFilterKeepsRelatedAndDeploysDropsNoise(t *testing.T) {
	events := []trailapi.Event{
		ev("UpdateFunctionCode20150331v2", "lambda.amazonaws.com", at(-time.Minute), map[string]string{"functionName": "orders-producer"}),
		ev("UpdateFunctionConfiguration20150331v2", "lambda.amazonaws.com", at(-24*time.Minute), map[string]string{"functionName": "arn:aws:lambda:us-east-1:123456789012:function:orders-consumer:live"}),
		ev("PutRolePolicy", "iam.amazonaws.com", at(-14*time.Minute), map[string]string{"roleName": "orders-consumer-role"}),
		ev("SetQueueAttributes", "sqs.amazonaws.com", at(16*time.Minute), map[string]string{"queueUrl": "https://sqs.us-east-1.amazonaws.com/123456789012/orders"}),
		ev("ScheduleKeyDeletion", "kms.amazonaws.com", at(-5*time.Minute), map[string]string{"keyId": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"}),
		ev("UpdateEventSourceMapping20150331", "lambda.amazonaws.com", at(-3*time.Minute), map[string]string{"uUID": "9f1c"}),
		ev("UpdateService", "ecs.amazonaws.com", at(-5*time.Hour), map[string]string{"service": "billing-api"}),
		ev("UpdateStack", "cloudformation.amazonaws.com", at(10*time.Minute), map[string]string{"stackName": "payments"}),
		ev("CreateLogStream", "logs.amazonaws.com", at(time.Minute), map[string]string{"logGroupName": "/aws/lambda/orders-consumer"}),
		ev("CreateLogStream", "logs.amazonaws.com", at(2*time.Minute), map[string]string{"logGroupName": "/aws/lambda/orders-consumer"}),
		ev("AssumeRole", "sts.amazonaws.com", at(time.Minute), nil),
		ev("Decrypt", "kms.amazonaws.com", at(time.Minute), map[string]string{"keyId": "1234abcd-12ab-34cd-56ef-1234567890ab"}),
		ev("GetFunction", "lambda.amazonaws.com", at(time.Minute), map[string]string{"functionName": "orders-consumer"}),
		ev("PutObject", "s3.amazonaws.com", at(time.Minute), nil),
	}
	kept, noise := Filter(events, rel, failureRange())
	var got []string
	for _, e := range kept {
		got = append(got, string(e.Relation)+" "+e.Name+" "+e.Resource)
	}
	want := []string{
		"related UpdateEventSourceMapping 9f1c",
		"related ScheduleKeyDeletion 1234abcd-12ab-34cd-56ef-1234567890ab",
		"related PutRolePolicy orders-consumer-role",
		"related SetQueueAttributes orders",
		"related UpdateFunctionConfiguration orders-consumer",
		"deploy UpdateFunctionCode orders-producer",
		"deploy UpdateStack payments",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	wantNoise := []Noise{{NoiseLogs, 2}, {NoiseKMSUse, 1}, {NoiseOther, 1}, {NoiseOutside, 1}, {NoiseRead, 1}, {NoiseSessions, 1}}
	if diff := cmp.Diff(wantNoise, noise); diff != "" {
		t.Errorf("noise (-want +got):\n%s", diff)
	}
	if kept[5].RawName != "UpdateFunctionCode20150331v2" || kept[5].Offset != -60 {
		t.Errorf("deploy %+v: want the raw name kept and offset -60", kept[5])
	}
}

func TestNearestPrefersBeforeTheFirstFailure(t *testing.T) {
	evs := []Event{
		{ID: "a", Offset: 30, Relation: Related},
		{ID: "b", Offset: -60, Relation: Deploy},
		{ID: "c", Offset: -24 * 60, Relation: Related},
	}
	if n := Nearest(evs); n == nil || n.ID != "b" {
		t.Fatalf("nearest %+v, want b: the closest change before the first failure", n)
	}
	if n := Nearest(evs[:1]); n == nil || n.ID != "a" {
		t.Fatalf("nearest %+v, want a when nothing came before", n)
	}
	if Nearest(nil) != nil {
		t.Fatal("nearest of nothing is not nil")
	}
}

func TestSentence(t *testing.T) {
	e := Event{What: "orders-producer's code was updated", User: "ci-deployer", Time: at(-time.Minute), Offset: -60}
	want := "orders-producer's code was updated by ci-deployer at 22:03 UTC, one minute before the first failure"
	if got := Sentence(e); got != want {
		t.Errorf("Sentence = %q\nwant       %q", got, want)
	}
	for d, want := range map[time.Duration]string{90 * time.Second: "one minute", 12 * time.Minute: "12 minutes", 125 * time.Minute: "2 h 5 min", 72 * time.Hour: "3 days"} {
		if got := Words(d); got != want {
			t.Errorf("Words(%s) = %q, want %q", d, got, want)
		}
	}
}

func TestNewRange(t *testing.T) {
	now := first.Add(11 * time.Hour)
	sent := []time.Time{first.Add(20 * time.Minute), first, first.Add(5 * time.Minute)}
	w, err := NewRange(Span{Sent: sent, Source: "samples.jsonl", Margin: 30 * time.Minute, Now: now})
	if err != nil || !w.From.Equal(first.Add(-30*time.Minute)) || !w.To.Equal(first.Add(50*time.Minute)) || !w.FirstFailure.Equal(first) {
		t.Fatalf("range %+v, %v", w, err)
	}
	from := first.Add(-2 * time.Hour)
	w, err = NewRange(Span{Sent: sent, Margin: time.Minute, From: &from, Now: now})
	if err != nil || !w.From.Equal(from) || !strings.Contains(w.Source, "--from/--to") {
		t.Fatalf("--from: %+v, %v", w, err)
	}
	if _, err := NewRange(Span{Margin: time.Minute, Now: now}); err != ErrNoTimes {
		t.Fatalf("no times: %v, want ErrNoTimes", err)
	}
	// A range reaching back past the 90 days is clipped, with a warning;
	// one wholly older is out of reach.
	old := Range{From: now.Add(-100 * 24 * time.Hour), To: now}
	f, _, ok, warn := Clip(old, now, trailapi.History, "CloudTrail's event history")
	if !ok || !f.After(old.From) || !strings.Contains(warn, "clipped") {
		t.Fatalf("clip: %s %v %q", f, ok, warn)
	}
	_, _, ok, warn = Clip(Range{From: now.Add(-30 * 24 * time.Hour), To: now.Add(-20 * 24 * time.Hour)}, now, cwapi.AlarmHistoryRetention, "alarm history")
	if ok || !strings.Contains(warn, "holds none of it") {
		t.Fatalf("older than retention: %v %q", ok, warn)
	}
}

func TestAlarmsOwnAndDependency(t *testing.T) {
	w := failureRange()
	changes := []cwapi.StateChange{
		{Alarm: "gateway-p99", Time: at(2 * time.Minute), From: "OK", To: "ALARM"},
		{Alarm: "orders-dlq-not-empty", Time: at(5 * time.Minute), From: "OK", To: "ALARM"},
		{Alarm: "gateway-p99", Time: at(20 * time.Minute), From: "ALARM", To: "OK"},
		{Alarm: "old", Time: at(-3 * time.Hour), From: "OK", To: "ALARM"},
	}
	metrics := map[string]cwapi.AlarmMetric{
		"gateway-p99":          {Namespace: "AWS/ApiGateway", Metric: "Latency", Dimensions: map[string]string{"ApiName": "payment-gateway"}},
		"orders-dlq-not-empty": {Namespace: "AWS/SQS", Metric: "ApproximateNumberOfMessagesVisible", Dimensions: map[string]string{"QueueName": "orders-dlq"}},
	}
	got := Alarms(changes, metrics, rel, w)
	if len(got) != 2 || got[0].Name != "gateway-p99" || got[0].Own || got[0].Dependency != "payment-gateway" || !got[1].Own {
		t.Fatalf("alarms %+v", got)
	}
	r := &Result{Range: w, Alarms: got, Events: []Event{}}
	r.Decide()
	if r.Verdict != VerdictAlarm || !strings.Contains(r.Evidence, "payment-gateway (AWS/ApiGateway Latency) went to ALARM at 22:06 UTC") {
		t.Fatalf("verdict %s, evidence %q", r.Verdict, r.Evidence)
	}
}

func TestChartLinesUpArrivalsAndErrors(t *testing.T) {
	w := failureRange()
	r := &Result{Range: w,
		Arrivals:  []cwapi.Point{{Time: first, Value: 30}, {Time: first.Add(time.Minute), Value: 10}},
		Consumers: []Consumer{{Function: "orders-consumer", Series: cwapi.FunctionSeries{Errors: []cwapi.Point{{Time: first, Value: 120}}, DurationP99: []cwapi.Point{{Time: first, Value: 2900}}}}},
	}
	lines := r.Chart()
	if len(lines) != ChartRows+2 {
		t.Fatalf("%d lines, want %d", len(lines), ChartRows+2)
	}
	// The range starts 30 minutes before the first failure: in rows of
	// 6m40s, the first failure falls in the fifth row.
	row := lines[1+4]
	if !strings.Contains(row, strings.Repeat("#", barWidth)+"     40") || !strings.Contains(row, "120") || !strings.Contains(row, "2900") {
		t.Errorf("row of the first failure: %q", row)
	}
	if !strings.Contains(lines[0], "orders-consumer errors") {
		t.Errorf("header %q", lines[0])
	}
}

// A message SQS moved from a backlogged source is dated by its first
// receive; one a function, topic or rule sent to its DLQ (no source ARN),
// or whose first receive is unknown, by SentTimestamp.
func TestFailureTime(t *testing.T) {
	sent := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	ms := func(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
	for name, c := range map[string]struct {
		attrs     map[string]string
		want      time.Time
		byReceive bool
		ok        bool
	}{
		"moved":         {map[string]string{"SentTimestamp": ms(sent), "ApproximateFirstReceiveTimestamp": ms(first), "DeadLetterQueueSourceArn": "arn:aws:sqs:us-east-1:1:orders"}, first, true, true},
		"sent to a DLQ": {map[string]string{"SentTimestamp": ms(sent), "ApproximateFirstReceiveTimestamp": ms(first)}, sent, false, true},
		"no receive":    {map[string]string{"SentTimestamp": ms(sent), "DeadLetterQueueSourceArn": "arn:aws:sqs:us-east-1:1:orders"}, sent, false, true},
		"receive first": {map[string]string{"SentTimestamp": ms(first), "ApproximateFirstReceiveTimestamp": ms(sent), "DeadLetterQueueSourceArn": "arn:aws:sqs:us-east-1:1:orders"}, first, false, true},
		"nothing":       {map[string]string{}, time.Time{}, false, false},
	} {
		m := sqsjson.Message{Attributes: c.attrs}
		got, byReceive, ok := FailureTime(&m)
		if !got.Equal(c.want) || byReceive != c.byReceive || ok != c.ok {
			t.Errorf("%s: %v %v %v, want %v %v %v", name, got, byReceive, ok, c.want, c.byReceive, c.ok)
		}
	}
}
