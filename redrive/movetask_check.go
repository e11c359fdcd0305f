package redrive

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// RunningTask is a message move task SQS lists as active on a DLQ:
// started by a colleague's "Start DLQ redrive" in the console, by another
// tool, or by an earlier --native. SQS allows one active task per queue,
// and the lease (a queue tag) does not see it.
type RunningTask struct {
	Handle  string
	Status  string // RUNNING or CANCELLING
	Started time.Time
	Moved   int64
	ToMove  int64
	Rate    int32  // MaxNumberOfMessagesPerSecond (0: SQS's own pace)
	Dest    string // the destination's ARN; "" sends each message to its own source
}

// Describe names the task for a person: when it started, how far it got,
// at what rate and where to.
func (t *RunningTask) Describe() string {
	rate := "SQS's own pace"
	if t.Rate > 0 {
		rate = fmt.Sprintf("%d msg/s", t.Rate)
	}
	dest := "each message to its own source"
	if t.Dest != "" {
		dest = sqsapi.NameFromARN(t.Dest)
	}
	s := fmt.Sprintf("started %s, %d of %s moved at %s → %s", t.Started.UTC().Format("2006-01-02 15:04:05 UTC"), t.Moved, plural.Of(int(t.ToMove), "message"), rate, dest)
	return untrusted.Terminal(s)
}

// ListRunning lists dlq's message move tasks (the ten most recent) and
// returns the active one, or nil when none is RUNNING or CANCELLING.
func ListRunning(ctx context.Context, c MoveTasks, dlq *sqsapi.Queue) (*RunningTask, error) {
	out, err := c.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlq.ARN), MaxResults: aws.Int32(10)})
	if err != nil {
		return nil, fmt.Errorf("list message move tasks of %s: %w", dlq.Name, err)
	}
	for _, r := range out.Results {
		switch st := aws.ToString(r.Status); st {
		case TaskRunning, TaskCancelling:
			return &RunningTask{
				Handle: aws.ToString(r.TaskHandle), Status: st, Started: time.UnixMilli(r.StartedTimestamp),
				Moved: r.ApproximateNumberOfMessagesMoved, ToMove: aws.ToInt64(r.ApproximateNumberOfMessagesToMove),
				Rate: aws.ToInt32(r.MaxNumberOfMessagesPerSecond), Dest: aws.ToString(r.DestinationArn),
			}, nil
		}
	}
	return nil, nil
}

// checkMoveTasks looks, before any move, for a message move task already
// moving the DLQ's messages: mfdlq moving beside it would race it for the
// same messages. A RUNNING task refuses the redrive (exit 3, naming it and
// the ways on) — --force does not pass it — unless --native, which then
// follows that task (p.Follow) instead of starting another. A CANCELLING
// one refuses both. A listing that gets no answer (no permission, a server
// without move tasks) is warned, and the redrive goes on; quiet says
// nothing then (the second look, after the question). A move from a file
// has no DLQ to look at.
func checkMoveTasks(ctx context.Context, env *Env, p *Plan, quiet bool) error {
	dlq := p.Source.Queue
	if p.Source.File != nil {
		return nil
	}
	t, err := ListRunning(ctx, env.SQS, dlq)
	if err != nil {
		if !quiet {
			env.Warn("move tasks: not checked: ListMessageMoveTasks answered %s; a console redrive of %s running alongside would not be seen (docs/iam.md: sqs:ListMessageMoveTasks)", untrusted.Terminal(answerOf(err)), dlq.Name)
		}
		return nil
	}
	p.tasksListed = true
	switch {
	case t == nil:
		p.Follow = nil
		return nil
	case t.Status == TaskCancelling:
		return &Refusal{Reason: fmt.Sprintf("a message move task on %s is being cancelled (%s): wait until it has ended (aws sqs list-message-move-tasks --source-arn %s)", dlq.Name, t.Describe(), dlq.ARN)}
	case !p.Req.Native:
		return &Refusal{Reason: fmt.Sprintf("a message move task is RUNNING on %s (%s), from the console or another tool: wait for it to finish, or cancel it (console: Cancel DLQ redrive; aws sqs cancel-message-move-task --task-handle %s), or follow it with --native", dlq.Name, t.Describe(), untrusted.Terminal(t.Handle))}
	}
	if p.Follow == nil {
		env.Info("move task: a task is RUNNING on %s (%s): --native follows it and starts no other", dlq.Name, t.Describe())
	}
	p.Follow = t
	return nil
}

// answerOf is the short form of a failed call's answer, for a warning:
// HTTP status and error code, or the error itself when no answer came.
func answerOf(err error) string {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		if code := sqsapi.ErrorCode(err); code != "error" {
			return fmt.Sprintf("HTTP %d (%s)", re.HTTPStatusCode(), code)
		}
		return fmt.Sprintf("HTTP %d", re.HTTPStatusCode())
	}
	return untrusted.Shorten(err.Error(), 200)
}
