package receipts

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/awserr"
)

// batch is the most entries SQS takes in one batch call.
const batch = 10

// SetVisibility sets the visibility timeout of msgs to seconds (0:
// release them), ten a call, and returns those SQS did not confirm. A
// release SQS refuses because the message is not in flight
// (MessageNotInflight) needs none; a refusal for a handle that is no
// longer the latest means a receive whose answer was lost hid the message
// again, which the caller counts as strayed (Lost.Stray).
func SetVisibility(ctx context.Context, c SQS, url string, msgs []Message, seconds int32, do Do, opts ...func(*sqs.Options)) (missed []Message) {
	for start := 0; start < len(msgs); start += batch {
		chunk := msgs[start:min(start+batch, len(msgs))]
		entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(chunk))
		for i, m := range chunk {
			entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(m.Handle), VisibilityTimeout: seconds}
		}
		var out *sqs.ChangeMessageVisibilityBatchOutput
		err := do.run(ctx, func(ctx context.Context) error {
			var err error
			out, err = c.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(url), Entries: entries}, opts...)
			return err
		})
		if err != nil {
			missed = append(missed, chunk...)
			continue
		}
		for _, f := range out.Failed {
			i, err := strconv.Atoi(aws.ToString(f.Id))
			if err != nil || i < 0 || i >= len(chunk) || seconds == 0 && awserr.NotInFlightCode(aws.ToString(f.Code)) {
				continue
			}
			missed = append(missed, chunk[i])
		}
	}
	return missed
}

// Release makes msgs visible again at once and returns those SQS did not
// confirm: they come back when their visibility timeout ends.
func Release(ctx context.Context, c SQS, url string, msgs []Message, do Do, opts ...func(*sqs.Options)) (missed []Message) {
	return SetVisibility(ctx, c, url, msgs, 0, do, opts...)
}

// Delete deletes msgs, ten a call, and returns those SQS confirmed; the
// others are still held (or hidden until their timeout ends).
func Delete(ctx context.Context, c SQS, url string, msgs []Message, do Do, opts ...func(*sqs.Options)) (deleted []Message) {
	for start := 0; start < len(msgs); start += batch {
		chunk := msgs[start:min(start+batch, len(msgs))]
		entries := make([]types.DeleteMessageBatchRequestEntry, len(chunk))
		for i, m := range chunk {
			entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(m.Handle)}
		}
		var out *sqs.DeleteMessageBatchOutput
		err := do.run(ctx, func(ctx context.Context) error {
			var err error
			out, err = c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: entries}, opts...)
			return err
		})
		if err != nil {
			continue
		}
		for _, s := range out.Successful {
			if i, err := strconv.Atoi(aws.ToString(s.Id)); err == nil && i >= 0 && i < len(chunk) {
				deleted = append(deleted, chunk[i])
			}
		}
	}
	return deleted
}

// InFlight is SQS's count of the queue's messages in flight
// (ApproximateNumberOfMessagesNotVisible).
func InFlight(ctx context.Context, c SQS, url string, do Do, opts ...func(*sqs.Options)) (int, error) {
	var out *sqs.GetQueueAttributesOutput
	err := do.run(ctx, func(ctx context.Context) error {
		var err error
		out, err = c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessagesNotVisible}}, opts...)
		return err
	})
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
}
