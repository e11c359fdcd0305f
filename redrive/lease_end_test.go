package redrive

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// endOrder notes the order of a run's last calls: the deletes' answers
// and the removal of the lease's tag.
type endOrder struct {
	sqsapi.Client
	mu            sync.Mutex
	deletes       int
	untagged      bool
	deletesAfter  int // deletes answered after the tag's removal began
	deletesBefore int // deletes answered when it began
}

func (c *endOrder) DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	out, err := c.Client.DeleteMessageBatch(ctx, in, opts...)
	c.mu.Lock()
	c.deletes++
	if c.untagged {
		c.deletesAfter++
	}
	c.mu.Unlock()
	return out, err
}

func (c *endOrder) UntagQueue(ctx context.Context, in *sqs.UntagQueueInput, opts ...func(*sqs.Options)) (*sqs.UntagQueueOutput, error) {
	c.mu.Lock()
	c.untagged, c.deletesBefore = true, c.deletes
	c.mu.Unlock()
	return c.Client.UntagQueue(ctx, in, opts...)
}

// A gated run gives its lease back while it writes its event and closes
// its journal, but never before its last delete was answered: the tag's
// removal begins after every delete of the move.
func TestEarlyLeaseGoesBackAfterTheLastDelete(t *testing.T) {
	var c *endOrder
	_, _, _, sum, err := earlyRun(t, 40, func(inner sqsapi.Client, _ string) sqsapi.Client {
		c = &endOrder{Client: inner}
		return c
	})
	if err != nil || sum.Err != nil || sum.Moved != 40 {
		t.Fatalf("run: %v, %+v; want 40 moved", err, sum)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.untagged || c.deletes == 0 {
		t.Fatalf("untagged %v after %d deletes: the test proves nothing", c.untagged, c.deletes)
	}
	if c.deletesAfter != 0 || c.deletesBefore != c.deletes {
		t.Fatalf("the lease's tag was removed with %d of %d deletes answered (%d after)", c.deletesBefore, c.deletes, c.deletesAfter)
	}
}
