package cmd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/livequeue"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

func redriveCanary(t *testing.T, name string) (int, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	code := run(context.Background(), d, []string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--canary", "3", "--canary-wait", "1s", "--yes",
		"--endpoint-url", localaws.Endpoint(t), "--incident", t.TempDir()})
	t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	return code, stderr.String()
}

// A canary into a queue nothing consumes (no consumer at all, no Lambda
// mapping) returns nothing to the DLQ, yet proves nothing: after the wait
// and the extra wait it is still in the queue, so the run stops (exit 3)
// naming it, and the rest stays in the DLQ. Against the local AWS.
func TestRedriveCanaryNotConsumedIsRefused(t *testing.T) {
	t.Parallel()
	s := localaws.NewSeeder(localaws.Config(t))
	name, src, dlq, _ := seedOrders(t, s, "cnry", 12, nil)
	began := time.Now()
	code, errOut := redriveCanary(t, name)
	if code != cmdutil.ExitCheckFailed {
		t.Fatalf("exit %d, want %d", code, cmdutil.ExitCheckFailed)
	}
	if waited := time.Since(began); waited < 2*time.Second {
		t.Errorf("stopped after %s: the canary's wait (1s) and the extra wait (1s) were not waited", waited)
	}
	want := "canary: the canary's 3 messages are still in " + name + " after "
	if !strings.Contains(errOut, want) || !strings.Contains(errOut, "nothing consumed them — is the consumer running? (mfdlq contain); the rest stays in the DLQ") {
		t.Errorf("stderr lacks %q … (mfdlq contain)", want)
	}
	ctx := context.Background()
	if v, f, err := s.Depth(ctx, dlq); err != nil || v+f != 9 {
		t.Errorf("DLQ holds %d+%d (%v), want the 9 not in the canary", v, f, err)
	}
	if v, f, err := s.Depth(ctx, src); err != nil || v+f != 3 {
		t.Errorf("%s holds %d+%d (%v), want the canary's 3", name, v, f, err)
	}
}

// The same canary with a consumer on the queue passes: the queue's depth
// is back to what it was before, nothing came back, the rest moves.
func TestRedriveCanaryConsumedPasses(t *testing.T) {
	t.Parallel()
	s := localaws.NewSeeder(localaws.Config(t))
	name, src, dlq, _ := seedOrders(t, s, "cnrc", 12, nil)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	consumed := make(chan int, 1)
	go func() {
		n := 0
		defer func() { consumed <- n }()
		for ctx.Err() == nil {
			out, err := s.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(src), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
			if err != nil {
				continue
			}
			for _, m := range out.Messages {
				// Not cancelled: the test stops this consumer once the
				// queue is empty, which the last delete's answer may
				// not have reached yet.
				if _, err := s.SQS.DeleteMessage(context.WithoutCancel(ctx), &sqs.DeleteMessageInput{QueueUrl: aws.String(src), ReceiptHandle: m.ReceiptHandle}); err == nil {
					n++
				}
			}
		}
	}()
	code, _ := redriveCanary(t, name)
	if code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	if v, f, err := s.Depth(context.Background(), dlq); err != nil || v+f != 0 {
		t.Errorf("DLQ holds %d+%d (%v), want all moved", v, f, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if v, f, _ := s.Depth(context.Background(), src); v+f == 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	stop()
	if n := <-consumed; n != 12 {
		t.Errorf("the consumer took %d, want 12", n)
	}
}

// A live destination (CloudWatch holds its own traffic before the canary)
// is not judged by its depth, which its own traffic moves. CloudWatch
// publishes minutes late: with no point since the canary nothing shows it
// consumed — no data is not proven, never consumed — so the run stops
// (exit 3) and the rest stays in the DLQ; here nothing consumes the queue,
// which only the metrics could have shown (it used to go on, warned).
func TestRedriveCanaryLiveWithoutDataIsNotProven(t *testing.T) {
	t.Parallel()
	cfg := localaws.Config(t)
	s := localaws.NewSeeder(cfg)
	name, _, dlq, _ := seedOrders(t, s, "cnrl", 12, nil)
	now := time.Now().UTC().Truncate(time.Minute)
	if err := livequeue.Backfill(context.Background(), cfg, name, now.Add(-15*time.Minute), now, livequeue.Minute{Sent: 60, Deleted: 60}); err != nil {
		t.Fatal(err)
	}
	code, errOut := redriveCanary(t, name)
	if code != cmdutil.ExitCheckFailed {
		t.Fatalf("exit %d, want 3", code)
	}
	if want := "canary not proven: CloudWatch has no ApproximateAgeOfOldestMessage or NumberOfMessagesDeleted for " + name + " since the canary"; !strings.Contains(errOut, want) {
		t.Errorf("stderr lacks %q", want)
	}
	if v, f, err := s.Depth(context.Background(), dlq); err != nil || v+f != 9 {
		t.Errorf("DLQ holds %d+%d (%v), want the 9 after the canary of 3", v, f, err)
	}
}
