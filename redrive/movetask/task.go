package movetask

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// Message move task statuses, as SQS reports them.
const (
	TaskRunning    = "RUNNING"
	TaskCompleted  = "COMPLETED"
	TaskCancelling = "CANCELLING"
	TaskCancelled  = "CANCELLED"
	TaskFailed     = "FAILED"
)

// TaskStatus is a message move task as ListMessageMoveTasks last showed it.
type TaskStatus struct {
	Handle string
	Status string
	// Started is when SQS started it (StartedTimestamp, epoch ms; 0 not
	// seen yet): an ended task is listed without its handle, found by it.
	Started int64
	Moved   int64
	// ToMove is 0 until SQS selects the task to start.
	ToMove  int64
	Failure string
}

// Native starts a message move task from dlq to dest at rate messages per
// second (1-500) and follows it every poll until it ends (Follow).
//
// StartMessageMoveTask is not idempotent: a retry after a lost answer
// meets the task the first try started. So it is sent once, with the
// SDK's retries off, and after an error the DLQ's tasks are listed: a task
// RUNNING there is followed (the answer was lost, or a colleague started
// one that instant), none means nothing started (a *NotStartedError), and
// a listing that fails leaves it unknown — an error that says how to look,
// never a blind retry.
func Native(ctx context.Context, c API, dlq, dest *sqsapi.Queue, rate int32, poll time.Duration, progress func(TaskStatus)) (TaskStatus, error) {
	in := &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(rate)}
	if dest != nil && dest.ARN != "" {
		in.DestinationArn = aws.String(dest.ARN)
	}
	asked := time.Now()
	out, err := c.StartMessageMoveTask(ctx, in, noRetries)
	if err == nil {
		return Follow(ctx, c, dlq, aws.ToString(out.TaskHandle), true, poll, progress)
	}
	t, lerr := ListRunning(context.WithoutCancel(ctx), c, dlq)
	switch {
	case lerr != nil:
		return TaskStatus{}, fmt.Errorf("start message move task from %s: %w; whether a task started is not known (%v): look with aws sqs list-message-move-tasks --source-arn %s before running again", dlq.Name, err, lerr, dlq.ARN)
	case t == nil:
		return TaskStatus{}, &NotStartedError{Err: fmt.Errorf("start message move task from %s: %w", dlq.Name, err)}
	}
	// A task started since the question is taken for ours (its answer was
	// lost): Ctrl-C cancels it. An older one is someone else's.
	return Follow(ctx, c, dlq, t.Handle, !t.Started.Before(asked.Add(-5*time.Second)), poll, progress)
}

// noRetries sends a call once: the SDK's retries are for idempotent calls.
func noRetries(o *sqs.Options) {
	o.Retryer = aws.NopRetryer{}
	o.RetryMaxAttempts = 1
}

// NotStartedError is a StartMessageMoveTask that failed while the DLQ's
// listing shows no task running: nothing moved, another way may be tried.
type NotStartedError struct{ Err error }

func (e *NotStartedError) Error() string { return e.Err.Error() }
func (e *NotStartedError) Unwrap() error { return e.Err }

// Follow follows the move task handle on dlq every poll until it ends.
// When ctx is cancelled and own is true it cancels the task and waits (up
// to a minute) for SQS to say it is cancelled, the messages not moved yet
// staying in the DLQ; a task that is not ours (own false: a colleague's,
// followed by --native) is left running and Follow returns at once.
func Follow(ctx context.Context, c API, dlq *sqsapi.Queue, handle string, own bool, poll time.Duration, progress func(TaskStatus)) (TaskStatus, error) {
	st := TaskStatus{Handle: handle, Status: TaskRunning}
	bg := context.WithoutCancel(ctx)
	var cancelled time.Time
	for {
		select {
		case <-ctx.Done():
			if !own {
				return st, nil
			}
			if cancelled.IsZero() {
				cancelled = time.Now()
				if _, err := c.CancelMessageMoveTask(bg, &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String(st.Handle)}); err != nil && !finished(err) {
					return st, fmt.Errorf("cancel message move task: %w", err)
				}
			}
		case <-time.After(poll):
		}
		if !cancelled.IsZero() {
			time.Sleep(poll)
		}
		cur, err := findTask(bg, c, dlq, st.Handle, st.Started)
		if err != nil {
			return st, err
		}
		st = cur
		if progress != nil {
			progress(st)
		}
		switch st.Status {
		case TaskCompleted, TaskCancelled, TaskFailed:
			return st, nil
		}
		if !cancelled.IsZero() && time.Since(cancelled) > time.Minute {
			return st, errors.New("message move task still not cancelled after a minute: check it with aws sqs list-message-move-tasks")
		}
	}
}

// finished tells whether a cancel failed because the task had already
// ended, which is what cancelling wanted.
func finished(err error) bool {
	return awserr.NotFound(err)
}

// findTask lists the DLQ's tasks (the ten most recent) and picks the one
// followed: by its handle while it runs — SQS lists a handle only for a
// running task — then, once it has ended, by the start time it was seen
// with. A task followed only after it ended (started 0) is the most recent
// one that no longer runs. Never another run's task: a colleague's task
// started the moment this one ended is listed first.
func findTask(ctx context.Context, c API, dlq *sqsapi.Queue, handle string, started int64) (TaskStatus, error) {
	out, err := c.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlq.ARN), MaxResults: aws.Int32(10)})
	if err != nil {
		return TaskStatus{}, fmt.Errorf("list message move tasks of %s: %w", dlq.Name, err)
	}
	pick := slices.IndexFunc(out.Results, func(r types.ListMessageMoveTasksResultEntry) bool {
		return handle != "" && aws.ToString(r.TaskHandle) == handle
	})
	if pick < 0 {
		pick = slices.IndexFunc(out.Results, func(r types.ListMessageMoveTasksResultEntry) bool {
			ended := aws.ToString(r.TaskHandle) == "" && aws.ToString(r.Status) != TaskRunning
			return ended && (started == 0 || r.StartedTimestamp == started)
		})
	}
	if pick < 0 {
		return TaskStatus{}, fmt.Errorf("list message move tasks of %s: the task followed (%s) is not listed: look with aws sqs list-message-move-tasks --source-arn %s", dlq.Name, untrusted.Terminal(handle), dlq.ARN)
	}
	r := out.Results[pick]
	return TaskStatus{
		Handle: handle, Status: aws.ToString(r.Status), Started: r.StartedTimestamp,
		Moved: r.ApproximateNumberOfMessagesMoved, ToMove: aws.ToInt64(r.ApproximateNumberOfMessagesToMove),
		Failure: aws.ToString(r.FailureReason),
	}, nil
}
