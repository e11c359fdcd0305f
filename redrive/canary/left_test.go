package canary

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// canaryRun is a run of one destination queue "orders" in the fake,
// holding held messages of its own before the canary.
func canaryRun(t *testing.T, fake *depths, wait time.Duration, held int) (*Check, *[]string) {
	t.Helper()
	dest := &sqsapi.Queue{Name: "orders", URL: "https://sqs.local/1/orders"}
	for range held {
		fake.put(dest.URL)
	}
	var warned []string
	ch := &Check{SQS: fake, Info: func(string, ...any) {},
		Warn:  func(f string, a ...any) { warned = append(warned, fmt.Sprintf(f, a...)) },
		Dests: []*sqsapi.Queue{dest}, Wait: wait}
	return ch, &warned
}

// depths is an sqsapi.Client that answers only GetQueueAttributes, from
// a visible count per queue URL: the canary's depth looks make no other
// call.
type depths struct {
	sqsapi.Client
	mu      sync.Mutex
	visible map[string]int
}

func newDepths() *depths { return &depths{visible: map[string]int{}} }

// put adds a visible message to the queue at url.
func (d *depths) put(url string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.visible[url]++
}

// keep leaves n visible messages in the queue at url (a consumer took the rest).
func (d *depths) keep(url string, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.visible[url] = n
}

func (d *depths) GetQueueAttributes(_ context.Context, in *sqs.GetQueueAttributesInput, _ ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return &sqs.GetQueueAttributesOutput{Attributes: map[string]string{
		"ApproximateNumberOfMessages": strconv.Itoa(d.visible[*in.QueueUrl]), "ApproximateNumberOfMessagesNotVisible": "0", "ApproximateNumberOfMessagesDelayed": "0",
	}}, nil
}

// A quiet destination whose consumer takes the canary during the extra
// wait passes: its depth is back to what it was before (its own message
// stays, and is not the canary's).
func TestCanaryLeftConsumed(t *testing.T) {
	fake := newDepths()
	r, _ := canaryRun(t, fake, 2*time.Second, 1)
	ctx := context.Background()
	dests := r.canaryBefore(ctx)
	if len(dests) != 1 || dests[0].before != 1 {
		t.Fatalf("before: %+v", dests)
	}
	span := canarySpan{start: time.Now()}
	for range 3 {
		fake.put("https://sqs.local/1/orders")
	}
	span.sent = time.Now()
	go func() {
		// The consumer takes the three canary messages a little later.
		time.Sleep(300 * time.Millisecond)
		fake.keep("https://sqs.local/1/orders", 1)
	}()
	halt, extra, err := r.canaryLeft(ctx, dests, Sent{Moved: 3}, span)
	if err != nil || halt != "" || !extra {
		t.Fatalf("canaryLeft = %q, extra %v, %v; want a pass after an extra look", halt, extra, err)
	}
}

// A quiet destination nothing consumes still holds the canary after the
// extra wait: the run stops with the line naming the queue and the fix,
// (redrive's outcome is then OutcomeCanaryStill, exit 3 in cmd).
func TestCanaryLeftStillThere(t *testing.T) {
	fake := newDepths()
	r, _ := canaryRun(t, fake, 200*time.Millisecond, 0)
	ctx := context.Background()
	dests := r.canaryBefore(ctx)
	span := canarySpan{start: time.Now()}
	for range 3 {
		fake.put("https://sqs.local/1/orders")
	}
	span.sent = time.Now()
	begun := time.Now()
	halt, extra, err := r.canaryLeft(ctx, dests, Sent{Moved: 3}, span)
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(begun); waited < 200*time.Millisecond || !extra {
		t.Errorf("waited %s (extra %v), want the extra wait of 200ms", waited, extra)
	}
	want := "canary: the canary's 3 messages are still in orders after "
	if !strings.HasPrefix(halt, want) || !strings.Contains(halt, "(3 visible, 0 in flight)") || !strings.HasSuffix(halt, "nothing consumed them — is the consumer running? (mfdlq contain)") {
		t.Fatalf("halt %q", halt)
	}
}

// A destination the canary sent nothing to (a shared DLQ's source with no
// message in the canary's window) is not waited for.
func TestCanaryLeftNothingSent(t *testing.T) {
	fake := newDepths()
	r, _ := canaryRun(t, fake, time.Hour, 0)
	r.PerSource = true
	dests := r.canaryBefore(context.Background())
	fake.put("https://sqs.local/1/orders")
	halt, extra, err := r.canaryLeft(context.Background(), dests, Sent{Moved: 2, To: map[string]int{}}, canarySpan{time.Now(), time.Now()})
	if err != nil || halt != "" || extra {
		t.Fatalf("canaryLeft = %q, %v, %v; want a pass at once", halt, extra, err)
	}
}

// A live destination's metrics: the age of oldest in a minute begun after
// the canary's last send, or the deletions since it, prove it gone.
func TestCanaryGone(t *testing.T) {
	sent := time.Date(2026, 12, 1, 3, 0, 20, 0, time.UTC)
	span := canarySpan{start: sent.Add(-5 * time.Second), sent: sent}
	now := sent.Add(3 * time.Minute)
	min := func(m int) time.Time { return time.Date(2026, 12, 1, 3, m, 0, 0, time.UTC) }
	pts := func(v ...float64) []cwapi.Point {
		var out []cwapi.Point
		for i, x := range v {
			out = append(out, cwapi.Point{Time: min(i), Value: x})
		}
		return out
	}
	cases := []struct {
		name          string
		ages, deleted []cwapi.Point
		left, noData  bool
		seen          string
	}{
		// Minute 3:01 began 40s after the last send; oldest 12s: gone.
		{"young oldest", pts(200, 12), nil, true, false, ""},
		// The minute of the send itself proves nothing.
		{"only the send's minute", pts(5), nil, false, true, ""},
		// 150 deletions over 3 min: not above 60/min × 3 + 3 × √60 × √3 = 220.
		{"old oldest, few deletions", pts(0, 300, 360), pts(50, 50, 50), false, false, "ApproximateAgeOfOldestMessage 360s at 03:02, not younger than the canary's 100s; NumberOfMessagesDeleted 150 over 3.0 min, 220 needed (its own 60.0/min ± 7.7 before the move reach 140–220 over 3.0 min by chance (mean ± 3σ); 10 moved)"},
		// Its own 180 plus the canary's 10 is within what its own traffic
		// reaches by chance, 220 (the old 80 % slack took 154).
		{"own rate and canary, within chance", pts(0, 300), pts(70, 65, 55), false, false, "ApproximateAgeOfOldestMessage 300s at 03:01, not younger than the canary's 40s; NumberOfMessagesDeleted 190 over 3.0 min, 220 needed (its own 60.0/min ± 7.7 before the move reach 140–220 over 3.0 min by chance (mean ± 3σ); 10 moved)"},
		{"deletions clear chance and canary", pts(0, 300), pts(85, 80, 70), true, false, ""},
		{"no data", nil, nil, false, true, ""},
	}
	for _, c := range cases {
		left, seen, noData := canaryGone(c.ages, c.deleted, span, now, 10, cwapi.Spread{Mean: 60}, 0)
		if left != c.left || noData != c.noData || seen != c.seen {
			t.Errorf("%s: left %v noData %v seen %q; want %v %v %q", c.name, left, noData, seen, c.left, c.noData, c.seen)
		}
	}
}

// A live destination with a delay (DelaySeconds 120): a minute begun
// during the canary's delay shows only the queue's own young messages —
// the canary is not delivered yet, and SQS does not say a delayed
// message's age counts — so it proves nothing; one begun after the delay
// does.
func TestCanaryGoneWaitsForTheDelay(t *testing.T) {
	sent := time.Date(2026, 12, 1, 3, 0, 20, 0, time.UTC)
	span := canarySpan{start: sent.Add(-5 * time.Second), sent: sent}
	now := sent.Add(4 * time.Minute)
	at := func(m int, v float64) cwapi.Point {
		return cwapi.Point{Time: time.Date(2026, 12, 1, 3, m, 0, 0, time.UTC), Value: v}
	}
	own := cwapi.Spread{Mean: 600, StdDev: 40}
	if left, _, noData := canaryGone([]cwapi.Point{at(0, 3), at(1, 4), at(2, 2)}, nil, span, now, 10, own, 2*time.Minute); left || !noData {
		t.Errorf("young oldest only while the canary was delayed: left %v noData %v; want not left, no data", left, noData)
	}
	if left, _, _ := canaryGone([]cwapi.Point{at(0, 3), at(1, 4), at(2, 2), at(3, 5)}, nil, span, now, 10, own, 2*time.Minute); !left {
		t.Errorf("young oldest in a minute begun after the delay: not left; want left")
	}
}

// fakeCW answers every GetMetricData with points per metric name.
type fakeCW map[string][]cwapi.Point

func (f fakeCW) GetMetricData(_ context.Context, in *cloudwatch.GetMetricDataInput, _ ...func(*cloudwatch.Options)) (*cloudwatch.GetMetricDataOutput, error) {
	q := in.MetricDataQueries[0]
	r := cwtypes.MetricDataResult{Id: q.Id}
	for _, p := range f[*q.MetricStat.Metric.MetricName] {
		r.Timestamps, r.Values = append(r.Timestamps, p.Time), append(r.Values, p.Value)
	}
	return &cloudwatch.GetMetricDataOutput{MetricDataResults: []cwtypes.MetricDataResult{r}}, nil
}

// A live destination (CloudWatch shows sends before the canary) is not
// judged by its depth, which its own traffic moves: with no point since
// the canary yet, the canary is not proven (no data is no evidence).
func TestCanaryLeftLiveNoData(t *testing.T) {
	fake := newDepths()
	r, warned := canaryRun(t, fake, 50*time.Millisecond, 0)
	ago := time.Now().UTC().Truncate(time.Minute).Add(-5 * time.Minute)
	cw := fakeCW{cwapi.MetricMessagesSent: {{Time: ago, Value: 300}}}
	r.CW = func(context.Context) (cwapi.MetricsAPI, error) { return cw, nil }
	dests := r.canaryBefore(context.Background())
	if len(dests) != 1 || !dests[0].own.live() {
		t.Fatalf("before: %+v, want a live destination", dests)
	}
	for range 3 {
		fake.put("https://sqs.local/1/orders")
	}
	halt, _, err := r.canaryLeft(context.Background(), dests, Sent{Moved: 3}, canarySpan{time.Now(), time.Now()})
	// No data is not "consumed": the rest stays, not proven.
	if err != nil || !strings.HasPrefix(halt, HaltUnproven+"CloudWatch has no ApproximateAgeOfOldestMessage or NumberOfMessagesDeleted for orders since the canary") ||
		!strings.Contains(halt, "whether the canary's 3 messages are consumed cannot be told") {
		t.Fatalf("canaryLeft = %q, %v; want not proven", halt, err)
	}
	if w := strings.Join(*warned, "\n"); w != "" {
		t.Errorf("warnings %q", w)
	}
}

// A live destination whose age of oldest, in a minute begun after the
// canary's last send, is younger than that send passes though its depth
// (its own traffic's messages) is above what it was: the metrics judge it.
func TestCanaryLeftLiveByAge(t *testing.T) {
	fake := newDepths()
	r, _ := canaryRun(t, fake, time.Hour, 0)
	// 20 s into its minute: the next minute's point is 40 s younger than
	// the send (the wall's now-2m, in a minute's last second, left the
	// point's 1 s no younger than the send: a failure one run in sixty).
	sent := time.Now().UTC().Truncate(time.Minute).Add(-2*time.Minute + 20*time.Second)
	next := sent.Truncate(time.Minute).Add(time.Minute)
	cw := fakeCW{cwapi.MetricMessagesSent: {{Time: next.Add(-10 * time.Minute), Value: 300}},
		cwapi.MetricAgeOfOldest: {{Time: next, Value: 1}}}
	r.CW = func(context.Context) (cwapi.MetricsAPI, error) { return cw, nil }
	dests := r.canaryBefore(context.Background())
	for range 5 {
		fake.put("https://sqs.local/1/orders")
	}
	halt, extra, err := r.canaryLeft(context.Background(), dests, Sent{Moved: 3}, canarySpan{sent.Add(-time.Second), sent})
	if err != nil || halt != "" || extra {
		t.Fatalf("canaryLeft = %q, extra %v, %v; want a pass at the first look", halt, extra, err)
	}
	cw[cwapi.MetricAgeOfOldest] = []cwapi.Point{{Time: next, Value: 500}}
	r.Wait = 100 * time.Millisecond
	halt, _, err = r.canaryLeft(context.Background(), dests, Sent{Moved: 3}, canarySpan{sent.Add(-time.Second), sent})
	if err != nil || !strings.Contains(halt, "the canary's 3 messages are not shown as consumed from orders after ") || !strings.Contains(halt, "ApproximateAgeOfOldestMessage 500s") {
		t.Fatalf("old oldest: halt %q, %v", halt, err)
	}
}
