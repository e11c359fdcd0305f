package canary

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/livequeue"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// A busy destination (100 deletions a minute of its own) whose consumer
// fails a canary of 10: its own deletions alone cleared the old bound
// (10 + 80 % of its rate: 250 over 3 minutes) and the canary read as
// consumed. Against the queue's own variance its 300 are what its own
// traffic does by chance: not proven, and the rest stays. The metrics are
// what SQS would publish, put into the local CloudWatch (moto) and read
// back through the SDK.
func TestCanaryBusySourceFailingCanaryNotProven(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	name := localaws.UniqueName("busy")
	url, err := localaws.NewSeeder(cfg).CreateQueue(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	this := now.Truncate(time.Minute)
	// Its own steady traffic up to the running minute; the canary's oldest
	// message is still there (age 600 s: never younger than the canary).
	if err := livequeue.Backfill(ctx, cfg, name, this.Add(-20*time.Minute), this, livequeue.Minute{Sent: 100, Deleted: 100, AgeOfOldest: 600}); err != nil {
		t.Fatal(err)
	}
	cw := cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch)
	var warned []string
	ch := &Check{SQS: sqsapi.New(cfg), Info: func(string, ...any) {}, Warn: func(f string, a ...any) { warned = append(warned, f) },
		CW:    func(context.Context) (cwapi.MetricsAPI, error) { return cw, nil },
		Dests: []*sqsapi.Queue{{Name: name, URL: url}}, Wait: 10 * time.Millisecond, Now: func() time.Time { return now }}
	dests := ch.canaryBefore(ctx)
	if len(dests) != 1 || !dests[0].own.live() || dests[0].own.deleted.Mean != 100 {
		t.Fatalf("before: %+v, want a live destination at 100 deletions a minute", dests[0].own)
	}
	span := canarySpan{start: this.Add(-3 * time.Minute), sent: this.Add(-3*time.Minute + 5*time.Second)}
	halt, _, err := ch.canaryLeft(ctx, dests, Sent{Moved: 10}, span)
	if err != nil {
		t.Fatal(err)
	}
	// 300 deleted over 3 minutes; its own reach 300 ± 3 × 10 × √3 by
	// chance: 248–352.
	if !strings.HasPrefix(halt, HaltUnproven) || !strings.Contains(halt, "NumberOfMessagesDeleted 300 over 3.0 min, 352 needed (its own 100.0/min ± 10.0 before the move reach 248–352 over 3.0 min by chance (mean ± 3σ); 10 moved)") {
		t.Fatalf("halt %q, want not proven with the figures", halt)
	}
	if old := 10 + 0.8*100*3.0; 300 < old {
		t.Fatalf("the old bound (%v) would not have passed it either: the test shows nothing", old)
	}
	if len(warned) != 0 {
		t.Errorf("warnings %q", warned)
	}
}

// The canary's wait starts with the destination's DelaySeconds: a
// redriven message is first delivered after it, and only then can its
// consumer fail it back.
func TestWaitHasTheDelay(t *testing.T) {
	dlq := &sqsapi.Queue{Name: "orders-dlq", ARN: "arn:aws:sqs:us-east-1:1:orders-dlq"}
	dest := &sqsapi.Queue{Name: "orders", Visibility: 30 * time.Second, Attributes: map[string]string{"DelaySeconds": "60"},
		RedrivePolicy: &sqsapi.RedrivePolicy{DeadLetterTargetArn: dlq.ARN, MaxReceiveCount: 3}}
	if got, want := Wait(dest, dlq), 60*time.Second+90*time.Second+10*time.Second; got != want {
		t.Errorf("Wait = %s, want %s", got, want)
	}
	dest.RedrivePolicy = nil
	if got := Wait(dest, dlq); got != 2*time.Minute {
		t.Errorf("no policy: Wait = %s, want the delay + 1m", got)
	}
}
