package livequeue

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
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

// stallingClient holds the first SendMessageBatch for a while, as a
// loaded emulator does, and records every batch's size.
type stallingClient struct {
	inner aws.HTTPClient
	stall time.Duration
	after bool // hold the answer (SQS has taken the messages) rather than the call
	mu    sync.Mutex
	sizes []int
}

func (c *stallingClient) Do(r *http.Request) (*http.Response, error) {
	if r.Header.Get("X-Amz-Target") == "AmazonSQS.SendMessageBatch" {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		c.mu.Lock()
		first := len(c.sizes) == 0
		c.sizes = append(c.sizes, bytes.Count(body, []byte(`"MessageBody"`)))
		c.mu.Unlock()
		if first && !c.after {
			time.Sleep(c.stall)
		}
		if first && c.after {
			resp, err := c.inner.Do(r)
			time.Sleep(c.stall)
			return resp, err
		}
	}
	return c.inner.Do(r)
}

// TestProducerKeepsItsRateOnASlowServer: a send held for a second does
// not slow the producer down: what fell due meanwhile goes in one batch,
// as a real producer's traffic would not wait for the emulator.
func TestProducerKeepsItsRateOnASlowServer(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	name := localaws.UniqueName("stall")
	url, err := localaws.NewSeeder(cfg).CreateQueue(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	stall := &stallingClient{inner: cfg.HTTPClient, stall: 1200 * time.Millisecond}
	if stall.inner == nil {
		stall.inner = http.DefaultClient
	}
	slow := cfg.Copy()
	slow.HTTPClient = stall
	l, err := Start(ctx, slow, Config{QueueURL: url, Rate: 10, Tick: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && l.Stats().Produced < 15; time.Sleep(50 * time.Millisecond) {
	}
	if _, err := l.Stop(); err != nil {
		t.Fatal(err)
	}
	stall.mu.Lock()
	defer stall.mu.Unlock()
	if len(stall.sizes) < 2 || stall.sizes[1] < 5 {
		t.Fatalf("batches after a 1.2 s stall at 10 msg/s: %v, want the second to carry the ≥ 10 sends that fell due", stall.sizes)
	}
}

// TestOwnMessageReceivedBeforeItsSendAnswered: the consumer can receive a
// message while the producer still waits for the send's answer; it is the
// producer's all the same — not a second send in the metrics, not left
// behind as outstanding once deleted (the age of oldest would grow).
func TestOwnMessageReceivedBeforeItsSendAnswered(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	name := localaws.UniqueName("early")
	url, err := localaws.NewSeeder(cfg).CreateQueue(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	stall := &stallingClient{inner: cfg.HTTPClient, stall: 1500 * time.Millisecond, after: true}
	if stall.inner == nil {
		stall.inner = http.DefaultClient
	}
	slow := cfg.Copy()
	slow.HTTPClient = stall
	l, err := Start(ctx, slow, Config{QueueURL: url, Rate: 10, Consumers: 1, Tick: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if st := l.Stats(); st.Produced >= 15 && st.Deleted >= 15 {
			break
		}
	}
	st, err := l.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if st.Deleted < 1 || st.Foreign != 0 {
		t.Fatalf("%+v: want the producer's messages deleted and none taken for somebody else's", st)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for id := range l.outstanding {
		if l.deleted[id] {
			t.Fatalf("%s deleted but still outstanding: the age of oldest would count it", id)
		}
	}
}
