package receipts

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// SQS is the calls the engine makes on a queue it reads, with the SDK's
// signatures so that *sqs.Client satisfies it.
type SQS interface {
	// ChangeMessageVisibilityBatch releases (0) or hides messages held.
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	// DeleteMessageBatch deletes messages held, by their latest handle.
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	// GetQueueAttributes reads the count of messages in flight, which
	// tells of receives whose answer was lost.
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

var _ SQS = (*sqs.Client)(nil)

// Do runs one call: once (nil), or through the caller's retries (the
// mover's retry.Policy.Do).
type Do func(ctx context.Context, call func(context.Context) error) error

func (d Do) run(ctx context.Context, call func(context.Context) error) error {
	if d == nil {
		return call(ctx)
	}
	return d(ctx, call)
}
