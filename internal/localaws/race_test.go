package localaws

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestMain(m *testing.M) { os.Exit(Wrap(m).Run()) }

// TestConcurrentDeletesAreDurable: SQS keeps every delete it answered. moto
// 5.2.1 unpatched does not when two DeleteMessageBatch calls on one queue
// run at once (see moto_server.py): about half of 1,000 deleted messages
// came back in flight. This is what left "10 in flight" after moves whose
// journal held every delete.
func TestConcurrentDeletesAreDurable(t *testing.T) {
	ctx := context.Background()
	c := sqsapi.New(Config(t))
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
	// A receive whose answer is lost (the SDK retries it) leaves its
	// batch in flight for 600 s unseen: those are counted, not deleted.
	received := 0
	for _, b := range batches {
		received += len(b)
	}
	stranded := 1000 - received
	if stranded < 0 || stranded > 20 {
		t.Fatalf("received %d messages of 1,000", received)
	}
	if stranded > 0 {
		t.Logf("%d messages stranded in flight by receives whose answer was lost", stranded)
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
	if visible != 0 || inFlight != stranded {
		t.Fatalf("after every delete answered: %d visible, %d in flight, want 0 and %d (the stranded ones)", visible, inFlight, stranded)
	}
}

// TestConcurrentReceivesHandEachMessageOnce: receives on one queue at once
// never hand a message to two callers within its visibility timeout.
func TestConcurrentReceivesHandEachMessageOnce(t *testing.T) {
	ctx := context.Background()
	c := sqsapi.New(Config(t))
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

// TestConcurrentConditionalPutsOneWins: of PutObject calls with
// If-None-Match: * racing for one key, S3 lets exactly one succeed (the S3
// lease rests on it); the others get 412 PreconditionFailed.
func TestConcurrentConditionalPutsOneWins(t *testing.T) {
	ctx := context.Background()
	c := s3.NewFromConfig(Config(t), func(o *s3.Options) { o.UsePathStyle = true })
	bucket := UniqueName("race")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	const keys, racers = 20, 8
	for k := 0; k < keys; k++ {
		key := fmt.Sprintf("lease-%d", k)
		var mu sync.Mutex
		won := 0
		parallel(t, racers, func(w int) error {
			_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), IfNoneMatch: aws.String("*"),
				Body: strings.NewReader(fmt.Sprint("racer ", w))}, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
			var api smithy.APIError
			switch {
			case err == nil:
				mu.Lock()
				won++
				mu.Unlock()
			case errors.As(err, &api) && (api.ErrorCode() == "PreconditionFailed" || api.ErrorCode() == "ConditionalRequestConflict"):
			default:
				return err
			}
			return nil
		})
		if won != 1 {
			t.Errorf("%s: %d conditional creates succeeded, want exactly 1", key, won)
		}
	}
}
