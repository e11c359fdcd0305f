package movetasks

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/internal/dlqsource"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

func setup(t *testing.T, n int) (*sqs.Client, *localaws.Seeder, string, string, string) {
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	srv, err := New(localaws.Endpoint(t), sqs.NewFromConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	client := sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(hs.URL) })
	name := localaws.UniqueName("mt")
	src, dlq, err := seed.CreatePair(context.Background(), name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	bodies := make([]string, n)
	for i := range bodies {
		bodies[i] = fmt.Sprintf("m-%d", i)
	}
	if err := seed.Send(context.Background(), dlq, bodies, nil); err != nil {
		t.Fatal(err)
	}
	arn, _ := seed.Attribute(context.Background(), dlq, "QueueArn")
	return client, seed, src, dlq, arn
}

func code(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

func TestMoveTaskLifecycle(t *testing.T) {
	c, seed, src, dlq, arn := setup(t, 20)
	ctx := context.Background()
	srcArn, _ := seed.Attribute(ctx, src, "QueueArn")
	// A queue that is nobody's DLQ cannot be a source.
	if _, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(srcArn)}); code(err) != "UnsupportedOperation" {
		t.Fatalf("non-DLQ source: %v", err)
	}
	if _, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(arn), MaxNumberOfMessagesPerSecond: aws.Int32(501)}); code(err) != "InvalidParameterValue" {
		t.Fatalf("rate 501: %v", err)
	}
	if _, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(arn + "-nope")}); code(err) != "ResourceNotFoundException" {
		t.Fatalf("missing source: %v", err)
	}
	out, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(arn), MaxNumberOfMessagesPerSecond: aws.Int32(10)})
	if err != nil {
		t.Fatal(err)
	}
	// One active task per source queue.
	if _, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(arn)}); code(err) != "UnsupportedOperation" {
		t.Fatalf("second task: %v", err)
	}
	l, err := c.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(arn)})
	if err != nil || len(l.Results) != 1 || aws.ToString(l.Results[0].Status) != "RUNNING" || aws.ToString(l.Results[0].TaskHandle) != aws.ToString(out.TaskHandle) {
		t.Fatalf("list while running: %+v %v", l, err)
	}
	if aws.ToInt64(l.Results[0].ApproximateNumberOfMessagesToMove) != 20 {
		t.Fatalf("to move %d", aws.ToInt64(l.Results[0].ApproximateNumberOfMessagesToMove))
	}
	waitStatus(t, c, arn, "COMPLETED", 30*time.Second)
	l, _ = c.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(arn)})
	if r := l.Results[0]; r.ApproximateNumberOfMessagesMoved != 20 || r.TaskHandle != nil {
		t.Fatalf("completed: moved %d, handle %v (only a RUNNING task has one)", r.ApproximateNumberOfMessagesMoved, r.TaskHandle)
	}
	if _, err := c.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: out.TaskHandle}); code(err) != "ResourceNotFoundException" {
		t.Fatalf("cancel a completed task: %v", err)
	}
	if v, f, _ := seed.Depth(ctx, dlq); v+f != 0 {
		t.Fatalf("DLQ holds %d", v+f)
	}
	if v, _, _ := seed.Depth(ctx, src); v != 20 {
		t.Fatalf("source holds %d, want 20", v)
	}
}

func TestMoveTaskCancelAndFail(t *testing.T) {
	c, seed, _, dlq, arn := setup(t, 30)
	ctx := context.Background()
	out, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(arn), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if _, err := c.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: out.TaskHandle}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, arn, "CANCELLED", 10*time.Second)
	v, f, _ := seed.Depth(ctx, dlq)
	if v+f == 0 || v+f == 30 {
		t.Fatalf("cancel after some moved: DLQ holds %d of 30", v+f)
	}
	// A new task may start once the last one ended; newest listed first.
	if _, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(arn)}); err != nil {
		t.Fatal(err)
	}
	l, _ := c.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(arn), MaxResults: aws.Int32(10)})
	if len(l.Results) != 2 || aws.ToString(l.Results[1].Status) != "CANCELLED" {
		t.Fatalf("list: %+v", l.Results)
	}
	waitStatus(t, c, arn, "COMPLETED", 30*time.Second)
}

func waitStatus(t *testing.T, c *sqs.Client, arn, want string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		l, err := c.ListMessageMoveTasks(context.Background(), &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		if got := aws.ToString(l.Results[0].Status); got == want {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("status %s after %s, want %s", got, limit, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// sharedSetup is a DLQ fed by three source queues whose messages reached it
// through their redrive policies, with internal/dlqsource between the
// stand-in and moto so each carries its DeadLetterQueueSourceArn as in SQS.
func sharedSetup(t *testing.T) (c *sqs.Client, seed *localaws.Seeder, dlq, dlqARN string, sources map[string]string) {
	t.Helper()
	ctx := context.Background()
	cfg := localaws.Config(t)
	src, err := dlqsource.New(localaws.Endpoint(t), sqs.NewFromConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	hsrc := httptest.NewServer(src)
	t.Cleanup(hsrc.Close)
	viaSrc := cfg.Copy()
	viaSrc.BaseEndpoint = aws.String(hsrc.URL)
	srv, err := New(hsrc.URL, sqs.NewFromConfig(viaSrc))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	viaTasks := cfg.Copy()
	viaTasks.BaseEndpoint = aws.String(hs.URL)
	c, seed = sqs.NewFromConfig(viaTasks), localaws.NewSeeder(viaTasks)
	base := localaws.UniqueName("mts")
	if dlq, err = seed.CreateQueue(ctx, base+"-dlq", nil); err != nil {
		t.Fatal(err)
	}
	dlqARN, _ = seed.Attribute(ctx, dlq, "QueueArn")
	policy := fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, dlqARN)
	sources = map[string]string{}
	for i, name := range []string{"orders", "payments", "refunds"} {
		url, err := seed.CreateQueue(ctx, base+"-"+name, map[string]string{"RedrivePolicy": policy, "VisibilityTimeout": "0"})
		if err != nil {
			t.Fatal(err)
		}
		sources[name] = url
		bodies := []string{}
		for j := range 2 + i {
			bodies = append(bodies, fmt.Sprintf("%s-%d", name, j))
		}
		if err := seed.Send(ctx, url, bodies, nil); err != nil {
			t.Fatal(err)
		}
		// Received once and not deleted; the next receive moves them.
		for range 3 {
			if _, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10}); err != nil {
				t.Fatal(err)
			}
		}
		if v, f, _ := seed.Depth(ctx, url); v+f != 0 {
			t.Fatalf("%s still holds %d", name, v+f)
		}
	}
	return c, seed, dlq, dlqARN, sources
}

func TestMoveTaskWithoutDestinationReturnsEachToItsSource(t *testing.T) {
	c, seed, dlq, arn, sources := sharedSetup(t)
	ctx := context.Background()
	if _, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(arn)}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, arn, "COMPLETED", 30*time.Second)
	if v, f, _ := seed.Depth(ctx, dlq); v+f != 0 {
		t.Fatalf("DLQ holds %d", v+f)
	}
	for name, url := range sources {
		got, err := seed.Drain(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range got {
			if !strings.HasPrefix(aws.ToString(m.Body), name+"-") {
				t.Errorf("%s received %s", name, aws.ToString(m.Body))
			}
		}
		if want := map[string]int{"orders": 2, "payments": 3, "refunds": 4}[name]; len(got) != want {
			t.Errorf("%s received %d, want %d", name, len(got), want)
		}
	}
}

func TestMoveTaskFailsOnAMessageWithoutSourceInASharedDLQ(t *testing.T) {
	c, seed, dlq, arn, _ := sharedSetup(t)
	ctx := context.Background()
	if err := seed.Send(ctx, dlq, []string{"direct"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(arn)}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, arn, "FAILED", 30*time.Second)
	l, _ := c.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(arn)})
	if r := aws.ToString(l.Results[0].FailureReason); !strings.Contains(r, "DeadLetterQueueSourceArn") {
		t.Fatalf("failure reason %q", r)
	}
	// The message without a source is still in the DLQ (visible again
	// once its visibility timeout passes).
	if v, f, _ := seed.Depth(ctx, dlq); v+f == 0 {
		t.Fatal("the DLQ is empty: the message without a source went somewhere")
	}
}

// TestConsoleTaskIsRunning is the case of a colleague who pressed "Start
// DLQ redrive" in the console: a slow task started by another client is
// listed RUNNING with its rate, start time and handle, and no second task
// may start until it ends.
func TestConsoleTaskIsRunning(t *testing.T) {
	c, _, _, _, arn := setup(t, 30)
	ctx := context.Background()
	before := time.Now().Add(-time.Second)
	console, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(arn), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	r := l.Results[0]
	if aws.ToString(r.Status) != "RUNNING" || aws.ToInt32(r.MaxNumberOfMessagesPerSecond) != 1 || r.DestinationArn != nil ||
		time.UnixMilli(r.StartedTimestamp).Before(before) || aws.ToString(r.TaskHandle) != aws.ToString(console.TaskHandle) {
		t.Fatalf("console task listed as %+v", r)
	}
	if _, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(arn), MaxNumberOfMessagesPerSecond: aws.Int32(100)}); code(err) != "UnsupportedOperation" {
		t.Fatalf("a second task beside the console's: %v", err)
	}
	if _, err := c.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: console.TaskHandle}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, arn, "CANCELLED", 10*time.Second)
}
