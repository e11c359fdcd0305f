package livequeue

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

func sum(t *testing.T, cw *cloudwatch.Client, queue, metric, stat string, from, to time.Time) (total float64, points int) {
	t.Helper()
	ps, err := cwapi.QueueMetric(context.Background(), cw, cwapi.MetricQuery{Queue: queue, Metric: metric, Stat: stat,
		Start: from, End: to, Period: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		total += p.Value
	}
	return total, len(ps)
}

// TestTrafficIsPublishedAsSQSWould runs a producer and a consumer that
// fails one message in five, and reads back through mfdlq's own metric
// reader what the harness published: the sums equal its counts.
func TestTrafficIsPublishedAsSQSWould(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("live")
	src, _, err := seed.CreatePair(ctx, name, name+"-dlq", 2)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-time.Minute)
	var n atomic.Int32
	l, err := Start(ctx, cfg, Config{QueueURL: src, Rate: 40, Consumers: 2, Tick: 200 * time.Millisecond,
		Handle: func(m types.Message) bool { n.Add(1); return !strings.Contains(aws.ToString(m.Body), `"live-5"`) }})
	if err != nil {
		t.Fatal(err)
	}
	// Enough traffic to judge, however slow the machine: up to 20 s.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if st := l.Stats(); st.Produced >= 20 && st.Deleted >= 10 && st.Failed >= 1 {
			break
		}
	}
	st, err := l.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if st.Produced < 20 || st.Deleted < 10 || st.Failed < 1 {
		t.Fatalf("too little traffic to judge: %+v", st)
	}
	end := time.Now().Add(time.Minute)
	cw := cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch)
	for metric, want := range map[string]int{cwapi.MetricMessagesSent: st.Produced + st.Foreign,
		MetricReceived: st.Received, cwapi.MetricMessagesDeleted: st.Deleted} {
		if got, _ := sum(t, cw, name, metric, "Sum", start, end); int(got) != want {
			t.Errorf("%s: CloudWatch sums %v, the harness counted %d", metric, got, want)
		}
	}
	if _, points := sum(t, cw, name, cwapi.MetricVisible, "Maximum", start, end); points == 0 {
		t.Error("no ApproximateNumberOfMessagesVisible published")
	}
	if int(n.Load()) != st.Received {
		t.Errorf("handler saw %d, stats say %d received", n.Load(), st.Received)
	}
}

// TestPausedConsumerAges: with nothing consuming, the visible count and
// the age of the oldest message grow.
func TestPausedConsumerAges(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("paused")
	url, err := seed.CreateQueue(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-time.Minute)
	l, err := Start(ctx, cfg, Config{QueueURL: url, Rate: 20, Tick: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1200 * time.Millisecond)
	st, err := l.Stop()
	if err != nil {
		t.Fatal(err)
	}
	cw := cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch)
	end := time.Now().Add(time.Minute)
	if got, _ := sum(t, cw, name, cwapi.MetricVisible, "Maximum", start, end); int(got) != st.Produced {
		t.Errorf("visible at most %v, want the %d produced", got, st.Produced)
	}
	if got, _ := sum(t, cw, name, cwapi.MetricAgeOfOldest, "Maximum", start, end); got < 0.5 {
		t.Errorf("age of oldest at most %vs after more than a second unconsumed", got)
	}
	if got, _ := sum(t, cw, name, cwapi.MetricMessagesDeleted, "Sum", start, end); got != 0 {
		t.Errorf("%v deleted with no consumer", got)
	}
}

func TestBackfillIsAStepHistory(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	name := localaws.UniqueName("history")
	to := time.Now().Truncate(time.Minute)
	from := to.Add(-30 * time.Minute)
	if err := Backfill(ctx, cfg, name, from, to, Minute{Sent: 300, Received: 300, Deleted: 300, AgeOfOldest: 2}); err != nil {
		t.Fatal(err)
	}
	cw := cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch)
	got, points := sum(t, cw, name, cwapi.MetricMessagesDeleted, "Sum", from, to)
	if points != 30 || got != 9000 {
		t.Fatalf("%d points summing %v, want 30 minutes of 300 (%d)", points, got, 30*300)
	}
}
