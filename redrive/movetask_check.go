package redrive

import (
	"context"
	"errors"
	"fmt"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"

	"github.com/mfdlq/mfdlq/redrive/movetask"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

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
	t, err := p.reads.movingTasks(ctx, env, p)
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
	case t.Status == movetask.TaskCancelling:
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
