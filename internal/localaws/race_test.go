package localaws

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

func TestMain(m *testing.M) { os.Exit(Wrap(m).Run()) }

// TestConcurrentDeletesAreDurable: SQS keeps every delete it answered. moto
// 5.2.1 unpatched does not when two DeleteMessageBatch calls on one queue
// run at once (see moto_server.py): about half of 1,000 deleted messages
// came back in flight. This is what left "10 in flight" after moves whose
// journal held every delete.
func TestConcurrentDeletesAreDurable(t *testing.T) {
	ctx := context.Background()
	c := sqs.NewFromConfig(Config(t))
	url := raceQueue(t, ctx, c, 1000)
	var batches [][]types.Message
	for {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10, VisibilityTimeout: 600})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			break
		}
		batches = append(batches, out.Messages)
	}
	if len(batches) != 100 {
		t.Fatalf("received %d batches, want 100", len(batches))
	}
	parallel(t, 16, func(w int) error {
		for i := w; i < len(batches); i += 16 {
			entries := make([]types.DeleteMessageBatchRequestEntry, len(batches[i]))
			for j, m := range batches[i] {
				entries[j] = types.DeleteMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(j)), ReceiptHandle: m.ReceiptHandle}
			}
			out, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &url, Entries: entries})
			if err != nil {
				return err
			}
			if len(out.Failed) > 0 {
				return fmt.Errorf("delete failed: %s", aws.ToString(out.Failed[0].Message))
			}
		}
		return nil
	})
	visible, inFlight, err := NewSeeder(Config(t)).Depth(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if visible != 0 || inFlight != 0 {
		t.Fatalf("after every delete answered: %d visible, %d in flight, want 0 and 0", visible, inFlight)
	}
}

// TestConcurrentReceivesHandEachMessageOnce: receives on one queue at once
// never hand a message to two callers within its visibility timeout.
func TestConcurrentReceivesHandEachMessageOnce(t *testing.T) {
	ctx := context.Background()
	c := sqs.NewFromConfig(Config(t))
	url := raceQueue(t, ctx, c, 500)
	var mu sync.Mutex
	seen := map[string]int{}
	parallel(t, 16, func(int) error {
		for {
			out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10, VisibilityTimeout: 600})
			if err != nil {
				return err
			}
			if len(out.Messages) == 0 {
				return nil
			}
			mu.Lock()
			for _, m := range out.Messages {
				seen[aws.ToString(m.MessageId)]++
			}
			mu.Unlock()
		}
	})
	if len(seen) != 500 {
		t.Errorf("received %d distinct messages, want 500", len(seen))
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("message %s handed out %d times within its visibility timeout", id, n)
		}
	}
}

func raceQueue(t *testing.T, ctx context.Context, c *sqs.Client, n int) string {
	t.Helper()
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(UniqueName("race"))})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 10 {
		entries := make([]types.SendMessageBatchRequestEntry, 10)
		for j := range entries {
			entries[j] = types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(j)), MessageBody: aws.String(fmt.Sprint("m", i+j))}
		}
		if _, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: entries}); err != nil {
			t.Fatal(err)
		}
	}
	return aws.ToString(q.QueueUrl)
}

func parallel(t *testing.T, n int, f func(worker int) error) {
	t.Helper()
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- f(w) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
