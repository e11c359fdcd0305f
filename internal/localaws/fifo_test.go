package localaws

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// TestReleasedFIFOMessagesComeBackFirst: a FIFO group's messages,
// received and made visible again at once (ChangeMessageVisibilityBatch
// 0, as the redrive plan's preview and a held-back batch do), come back
// in their order: SQS hands a group out in order. moto 5.2.1 left a
// released message counted in flight when its clock read one tick twice
// (see moto_server.py), and the next receive began the group at that
// message (2 3 4 ahead of 0 and 1). Each round releases ten messages of
// one group, on a queue of its own: on the old server 10 runs of 10
// failed, each within its first 10 rounds.
func TestReleasedFIFOMessagesComeBackFirst(t *testing.T) {
	ctx := context.Background()
	c := sqsapi.New(Config(t))
	want := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	for round := range 20 {
		q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(UniqueName("release") + ".fifo"),
			Attributes: map[string]string{"FifoQueue": "true"}})
		if err != nil {
			t.Fatal(err)
		}
		var entries []types.SendMessageBatchRequestEntry
		for seq := range want {
			entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(seq)), MessageBody: aws.String(strconv.Itoa(seq)),
				MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String(strconv.Itoa(seq))})
		}
		if _, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: entries}); err != nil {
			t.Fatal(err)
		}
		first, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60})
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Messages) != 10 {
			t.Fatalf("round %d: the first receive took %d messages, want 10", round, len(first.Messages))
		}
		release := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(first.Messages))
		for i, m := range first.Messages {
			release[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0}
		}
		out, err := c.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: q.QueueUrl, Entries: release})
		if err != nil || len(out.Failed) > 0 {
			t.Fatalf("round %d: release: %v %+v", round, err, out)
		}
		again, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range again.Messages {
			got = append(got, aws.ToString(m.Body))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: after the release the group came as %v, want %v", round, got, want)
		}
		if _, err := c.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: q.QueueUrl}); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}
