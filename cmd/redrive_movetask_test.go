package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// consoleTask starts a message move task on the DLQ through the stand-in,
// as a colleague's "Start DLQ redrive" in the console does.
func consoleTask(t *testing.T, url, dlq string, rate int32) string {
	t.Helper()
	ctx := context.Background()
	cfg := localaws.Config(t)
	c := sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(url) })
	arn, err := localaws.NewSeeder(cfg).Attribute(ctx, dlq, "QueueArn")
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(arn), MaxNumberOfMessagesPerSecond: aws.Int32(rate)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.TaskHandle)
}

// A console redrive RUNNING on the DLQ refuses mfdlq's own mover before
// anything moves (exit 3, naming the task and the three ways on); --native
// follows that task to its end instead of starting a second one.
func TestRedriveBesideARunningMoveTask(t *testing.T) {
	_, url, name, seed, src, dlq := nativeSetup(t, 12)
	handle := consoleTask(t, url, dlq, 2)
	ctx := context.Background()
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	code := run(ctx, d, []string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--canary", "0", "--yes", "--endpoint-url", url, "--incident", t.TempDir()})
	errOut := stderr.String()
	if code != cmdutil.ExitCheckFailed {
		t.Fatalf("exit %d, want %d\n%s", code, cmdutil.ExitCheckFailed, errOut)
	}
	for _, want := range []string{"a message move task is RUNNING on " + name + "-dlq (started ", "moved at 2 msg/s → each message to its own source",
		"wait for it to finish, or cancel it (console: Cancel DLQ redrive; aws sqs cancel-message-move-task --task-handle " + handle + "), or follow it with --native"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "plan:") {
		t.Error("refused after the plan: the refusal comes first")
	}
	code, out, errOut := runNativeCmd(ctx, url, name, t.TempDir(), "--rate", "100", "--output", "json")
	if code != 0 {
		t.Fatalf("--native: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"--native follows it and starts no other", "following the message move task on " + name + "-dlq", "message move task COMPLETED"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, `"moved":12`) {
		t.Errorf("summary: %s", out)
	}
	if v, f, _ := seed.Depth(ctx, dlq); v+f != 0 {
		t.Fatalf("DLQ holds %d", v+f)
	}
	if v, _, _ := seed.Depth(ctx, src); v != 12 {
		t.Fatalf("source holds %d, want 12: one task moved each once", v)
	}
}
