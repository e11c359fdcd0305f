package movetasks

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

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
