package movetask

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
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
func ListRunning(ctx context.Context, c API, dlq *sqsapi.Queue) (*RunningTask, error) {
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
