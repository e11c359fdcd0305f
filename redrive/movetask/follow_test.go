package movetask

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// listings is an API that answers each ListMessageMoveTasks with the
// next of its listings (the last one again when they run out).
type listings struct {
	API
	mu   sync.Mutex
	next [][]types.ListMessageMoveTasksResultEntry
}

func (l *listings) ListMessageMoveTasks(context.Context, *sqs.ListMessageMoveTasksInput, ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.next[0]
	if len(l.next) > 1 {
		l.next = l.next[1:]
	}
	return &sqs.ListMessageMoveTasksOutput{Results: out}, nil
}

// Follow follows its own task, by handle while it runs and by its start
// time once it ended (SQS lists a handle only for a running task), not
// the task listed first: here a colleague's, started the moment it ended.
func TestFollowMatchesTheTaskByHandle(t *testing.T) {
	ours := func(status string, moved int64, handle *string) types.ListMessageMoveTasksResultEntry {
		return types.ListMessageMoveTasksResultEntry{TaskHandle: handle, Status: aws.String(status), StartedTimestamp: 1000,
			ApproximateNumberOfMessagesMoved: moved, ApproximateNumberOfMessagesToMove: aws.Int64(40)}
	}
	theirs := types.ListMessageMoveTasksResultEntry{TaskHandle: aws.String("h-theirs"), Status: aws.String(TaskRunning), StartedTimestamp: 2000,
		ApproximateNumberOfMessagesMoved: 3, ApproximateNumberOfMessagesToMove: aws.Int64(900)}
	older := types.ListMessageMoveTasksResultEntry{Status: aws.String(TaskCompleted), StartedTimestamp: 10, ApproximateNumberOfMessagesMoved: 7}
	c := &listings{next: [][]types.ListMessageMoveTasksResultEntry{
		{ours(TaskRunning, 10, aws.String("h-ours")), older},
		{theirs, ours(TaskCompleted, 40, nil), older},
	}}
	dlq := &sqsapi.Queue{Name: "orders-dlq", ARN: "arn:aws:sqs:us-east-1:123456789012:orders-dlq"}
	var seen []TaskStatus
	st, err := Follow(context.Background(), c, dlq, "h-ours", true, 0, func(s TaskStatus) { seen = append(seen, s) })
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != TaskCompleted || st.Moved != 40 || st.Handle != "h-ours" || len(seen) != 2 {
		t.Fatalf("followed %+v after %d looks, want ours COMPLETED with 40 moved after 2", st, len(seen))
	}
	// Not listed at all (neither running with its handle nor ended at its
	// start time): an error naming how to look, not someone else's task.
	c = &listings{next: [][]types.ListMessageMoveTasksResultEntry{{theirs}}}
	if _, err := Follow(context.Background(), c, dlq, "h-ours", true, 0, nil); err == nil {
		t.Fatal("a task not listed was followed as another")
	}
}
