package inventory

import (
	"context"
	"fmt"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 12, 1, 3, 27, 0, 0, time.UTC)

func exp(in time.Duration) *sqsapi.Expiry {
	return &sqsapi.Expiry{At: t0.Add(in), UpperBound: true, Basis: sqsapi.BasisCloudWatch}
}

func TestSortIsUrgencyOrder(t *testing.T) {
	dlqs := []DLQ{
		{Queue: "a-empty"},
		{Queue: "b-unknown-small", Visible: 1},
		{Queue: "c-later", Visible: 1, Expiry: exp(3 * time.Hour)},
		{Queue: "d-unknown-deep", Visible: 50},
		{Queue: "e-soon", InFlight: 2, Expiry: exp(47 * time.Minute)},
		{Queue: "0-empty"},
	}
	Sort(dlqs)
	var got []string
	for _, d := range dlqs {
		got = append(got, d.Queue)
	}
	want := []string{"e-soon", "c-later", "d-unknown-deep", "b-unknown-small", "0-empty", "a-empty"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestSummarize(t *testing.T) {
	dlqs := []DLQ{
		{Queue: "payments-dlq", Visible: 1200, Expiry: exp(47*time.Minute + 30*time.Second)},
		{Queue: "orders-dlq", Visible: 3, InFlight: 1, Expiry: exp(26 * time.Hour)},
		{Queue: "mail-dlq", Visible: 0},
		{Queue: "x-dlq"}, {Queue: "y-dlq"}, {Queue: "z-dlq"},
		{Queue: "w-dlq", Delayed: 0},
	}
	s := Summarize(dlqs, t0)
	if want := "7 DLQs, 2 non-empty, 1,204 messages, the soonest expires in 47 min (payments-dlq)"; s.Text != want {
		t.Errorf("text = %q, want %q", s.Text, want)
	}
	if s.SoonestExpiresIn == nil || *s.SoonestExpiresIn != 47*60+30 {
		t.Errorf("soonest_expires_in = %v", s.SoonestExpiresIn)
	}
	for _, tc := range []struct {
		dlqs []DLQ
		want string
	}{
		{nil, "0 DLQs, none holds a message"},
		{[]DLQ{{Queue: "a", Visible: 1}}, "1 DLQ, 1 non-empty, 1 message, expiry unknown (no CloudWatch age of oldest)"},
		{[]DLQ{{Queue: "a", Visible: 2, Expiry: exp(-time.Minute)}}, "1 DLQ, 1 non-empty, 2 messages, the oldest is due to expire (a)"},
	} {
		if got := Summarize(tc.dlqs, t0).Text; got != tc.want {
			t.Errorf("Summarize = %q, want %q", got, tc.want)
		}
	}
}

func TestCountdown(t *testing.T) {
	e := sqsapi.FromAge(3600, t0, 4*24*time.Hour, false)
	if got, want := e.Countdown(t0), "oldest expires in at most 3 d 23 h — 2026-12-05 02:27 UTC"; got != want {
		t.Errorf("Countdown = %q, want %q", got, want)
	}
	f := sqsapi.FromAge(60, t0, 2*time.Hour+14*time.Minute, true)
	if got, want := f.Countdown(t0), "oldest expires in 2 h 13 min — 2026-12-01 05:40 UTC"; got != want {
		t.Errorf("Countdown = %q, want %q", got, want)
	}
	s := sqsapi.FromSent(t0.Add(-time.Hour), 30*time.Minute)
	if got, want := s.Countdown(t0), "oldest message due to expire 30 min ago — 2026-12-01 02:57 UTC"; got != want {
		t.Errorf("Countdown = %q, want %q", got, want)
	}
	for d, want := range map[time.Duration]string{
		30 * time.Second: "<1 min", 47 * time.Minute: "47 min", 2 * time.Hour: "2 h",
		49 * time.Hour: "2 d 1 h", 72 * time.Hour: "3 d",
	} {
		if got := sqsapi.Human(d); got != want {
			t.Errorf("sqsapi.Human(%s) = %q, want %q", d, got, want)
		}
	}
	if got := Thousands(1234567); got != "1,234,567" {
		t.Errorf("Thousands = %q", got)
	}
}

// fakeMetrics answers GetMetricData with one point per query and counts
// the calls and the queries of each.
type fakeMetrics struct{ calls, most int }

func (f *fakeMetrics) GetMetricData(_ context.Context, in *cloudwatch.GetMetricDataInput, _ ...func(*cloudwatch.Options)) (*cloudwatch.GetMetricDataOutput, error) {
	f.calls++
	f.most = max(f.most, len(in.MetricDataQueries))
	out := &cloudwatch.GetMetricDataOutput{}
	for _, q := range in.MetricDataQueries {
		out.MetricDataResults = append(out.MetricDataResults, types.MetricDataResult{
			Id: q.Id, Timestamps: []time.Time{t0.Add(-2 * time.Minute), t0.Add(-time.Minute)}, Values: []float64{50, 60},
		})
	}
	return out, nil
}

func TestAgesAreReadInBatchesOf500(t *testing.T) {
	dlqs := make([]DLQ, 1201)
	for i := range dlqs {
		dlqs[i] = DLQ{Queue: fmt.Sprintf("q-%d", i), Visible: 1, Retention: 3600}
	}
	f := &fakeMetrics{}
	if err := readAges(context.Background(), f, dlqs, Options{Now: func() time.Time { return t0 }, AgeWindow: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if f.calls != 3 || f.most != MaxQueriesPerCall {
		t.Errorf("%d calls of at most %d queries; want 3 of at most 500", f.calls, f.most)
	}
	last := dlqs[1200]
	if last.AgeOfOldest == nil || *last.AgeOfOldest != 60 || !last.AgeReadAt.Equal(t0.Add(-time.Minute)) {
		t.Fatalf("latest point not taken: %+v", last)
	}
	if want := t0.Add(-2 * time.Minute).Add(time.Hour); !last.Expiry.At.Equal(want) {
		t.Errorf("expires at %s, want %s", last.Expiry.At, want)
	}
}

func TestWatchedQueues(t *testing.T) {
	dim := []types.Dimension{{Name: aws.String("QueueName"), Value: aws.String("orders-dlq")}}
	plain := types.MetricAlarm{Namespace: aws.String("AWS/SQS"), MetricName: aws.String("ApproximateNumberOfMessagesVisible"), Dimensions: dim}
	math := types.MetricAlarm{Metrics: []types.MetricDataQuery{{MetricStat: &types.MetricStat{Metric: &types.Metric{
		Namespace: aws.String("AWS/SQS"), MetricName: aws.String("ApproximateNumberOfMessagesVisible"), Dimensions: dim}}}}}
	age := types.MetricAlarm{Namespace: aws.String("AWS/SQS"), MetricName: aws.String("ApproximateAgeOfOldestMessage"), Dimensions: dim}
	for name, tc := range map[string]struct {
		a    types.MetricAlarm
		want string
	}{"plain": {plain, "orders-dlq"}, "metric math": {math, "orders-dlq"}, "age is not depth": {age, ""}} {
		if got := strings.Join(cwapi.WatchedQueues(tc.a, cwapi.MetricVisible), ","); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}

// Without a CloudWatch age a DLQ holding messages still has a bound: one
// retention period from now. An empty DLQ has none, and a known expiry
// leaves the bound out.
func TestExpiresWithinRetentionWithoutAge(t *testing.T) {
	now := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	noAge := DLQ{Visible: 2, Retention: 345600}
	noAge.settle(now)
	if noAge.ExpiresWithin == nil || *noAge.ExpiresWithin != 345600 || noAge.ExpiresIn != nil {
		t.Fatalf("no age: within %v, in %v; want 345600 and nil", noAge.ExpiresWithin, noAge.ExpiresIn)
	}
	empty := DLQ{Retention: 345600}
	empty.settle(now)
	if empty.ExpiresWithin != nil {
		t.Fatalf("empty DLQ: within %d, want nil", *empty.ExpiresWithin)
	}
	e := sqsapi.FromAge(60, now, time.Hour, false)
	known := DLQ{Visible: 1, Retention: 3600, Expiry: &e}
	known.settle(now)
	if known.ExpiresWithin != nil || known.ExpiresIn == nil || *known.ExpiresIn != 3540 {
		t.Fatalf("known expiry: within %v, in %v; want nil and 3540", known.ExpiresWithin, known.ExpiresIn)
	}
}

// SQS keeps a standard message's original enqueue time when it moves to
// the DLQ, and resets a FIFO one's ("dead-letter queue retention"): the
// pitfall is a standard DLQ no longer-lived than a source, never a FIFO.
func TestRetentionPitfallIsStandardOnly(t *testing.T) {
	now := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	src := []Source{{Queue: "orders", Retention: 345600}}
	std := DLQ{Queue: "orders-dlq", Retention: 345600, Sources: src}
	std.settle(now)
	fifo := DLQ{Queue: "orders-dlq.fifo", FIFO: true, Retention: 345600, Sources: []Source{{Queue: "orders.fifo", Retention: 345600}}}
	fifo.settle(now)
	if !std.RetentionPitfall || fifo.RetentionPitfall {
		t.Errorf("pitfall: standard %v, FIFO %v; want true, false", std.RetentionPitfall, fifo.RetentionPitfall)
	}
}

// TestOldestExpiryTakesTheSooner: a standard DLQ's retention counts from
// the message's SentTimestamp, which can say sooner than CloudWatch's age;
// a FIFO DLQ restarted the clock on the move, so only CloudWatch tells.
func TestOldestExpiryTakesTheSooner(t *testing.T) {
	sent := t0.Add(-90 * time.Minute)
	msgs := []sqsjson.Message{{MessageId: "m1", Attributes: map[string]string{
		sqsjson.AttrSentTimestamp: strconv.FormatInt(sent.UnixMilli(), 10)}}}
	std := &sqsapi.Queue{Name: "orders-dlq", Retention: time.Hour}
	fifo := &sqsapi.Queue{Name: "orders-dlq.fifo", Retention: time.Hour, FIFO: true}
	for _, c := range []struct {
		name string
		cw   Metrics
		q    *sqsapi.Queue
		want time.Time // zero: unknown
	}{
		{"standard, both", &fakeMetrics{}, std, sent.Add(time.Hour)},
		{"standard, no CloudWatch", nil, std, sent.Add(time.Hour)},
		{"FIFO, CloudWatch only", &fakeMetrics{}, fifo, t0.Add(-2 * time.Minute).Add(time.Hour)},
		{"FIFO, no CloudWatch", nil, fifo, time.Time{}},
	} {
		e, err := OldestExpiry(context.Background(), c.cw, c.q, msgs, t0)
		switch {
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want.IsZero() && e != nil:
			t.Errorf("%s: expires at %s, want unknown", c.name, e.At)
		case !c.want.IsZero() && (e == nil || !e.At.Equal(c.want)):
			t.Errorf("%s: expires %+v, want at %s", c.name, e, c.want)
		}
	}
}
