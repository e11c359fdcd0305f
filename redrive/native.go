package redrive

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// MoveTasks is SQS's own DLQ redrive (message move tasks), with the SDK's
// signatures.
type MoveTasks interface {
	StartMessageMoveTask(ctx context.Context, in *sqs.StartMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.StartMessageMoveTaskOutput, error)
	ListMessageMoveTasks(ctx context.Context, in *sqs.ListMessageMoveTasksInput, optFns ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error)
	CancelMessageMoveTask(ctx context.Context, in *sqs.CancelMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.CancelMessageMoveTaskOutput, error)
}

var _ MoveTasks = (sqsapi.Client)(nil)

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
	Handle  string
	Status  string
	Moved   int64
	ToMove  int64
	Failure string
}

// Native starts a message move task from dlq to dest at rate messages per
// second (1-500) and follows it every poll until it ends. When ctx is
// cancelled it cancels the task and waits (up to a minute) for SQS to say
// it is cancelled; the messages not moved yet stay in the DLQ.
func Native(ctx context.Context, c MoveTasks, dlq, dest *sqsapi.Queue, rate int32, poll time.Duration, progress func(TaskStatus)) (TaskStatus, error) {
	in := &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(rate)}
	if dest != nil && dest.ARN != "" {
		in.DestinationArn = aws.String(dest.ARN)
	}
	out, err := c.StartMessageMoveTask(ctx, in)
	if err != nil {
		return TaskStatus{}, fmt.Errorf("start message move task from %s: %w", dlq.Name, err)
	}
	st := TaskStatus{Handle: aws.ToString(out.TaskHandle), Status: TaskRunning}
	bg := context.WithoutCancel(ctx)
	var cancelled time.Time
	for {
		select {
		case <-ctx.Done():
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
		cur, err := latestTask(bg, c, dlq, st.Handle)
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
	return sqsapi.ErrorCode(err) == "ResourceNotFoundException"
}

func latestTask(ctx context.Context, c MoveTasks, dlq *sqsapi.Queue, handle string) (TaskStatus, error) {
	out, err := c.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlq.ARN), MaxResults: aws.Int32(10)})
	if err != nil {
		return TaskStatus{}, fmt.Errorf("list message move tasks of %s: %w", dlq.Name, err)
	}
	if len(out.Results) == 0 {
		return TaskStatus{}, fmt.Errorf("list message move tasks of %s: the task started is not listed", dlq.Name)
	}
	r := out.Results[0] // the most recent first
	return TaskStatus{
		Handle: handle, Status: aws.ToString(r.Status),
		Moved: r.ApproximateNumberOfMessagesMoved, ToMove: aws.ToInt64(r.ApproximateNumberOfMessagesToMove),
		Failure: aws.ToString(r.FailureReason),
	}, nil
}
