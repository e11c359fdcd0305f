package mover

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Target is a destination that is not an SQS queue: a Lambda function, an
// SNS topic or an EventBridge bus — where SQS's own redrive cannot go. The
// mover calls Send instead of SendMessageBatch; everything else (receive,
// rate, journal, delete only after the target accepted, retries, canary,
// circuit breaker) is the same engine.
type Target interface {
	// Send delivers the messages of chunk at the indexes pending (at most
	// ten). It returns what the target accepted, by entry id (the index as
	// a decimal string), with the id the target gave it (SNS MessageId,
	// EventBridge EventId, Lambda RequestId), and what it refused: a
	// SenderFault entry is final for that message, any other is retried. A
	// non-nil error fails every pending entry: retried when retry.Retryable,
	// else the run stops (no permission, no such function).
	Send(ctx context.Context, chunk []sqsjson.Message, pending []int) (map[string]string, []types.BatchResultErrorEntry, error)
}

// AttributeTarget is a Target that delivers message attributes (an SNS
// topic): Carried is what it publishes of m — the attributes, and the size
// of the message they travel with — so that the provenance stamp is
// weighed against those. It publishes the stamp the mover set on m's
// MessageAttributes in place of any it would carry. A Target that is not
// one (a function, a bus) carries no stamp.
type AttributeTarget interface {
	Carried(m *sqsjson.Message) (attrs map[string]sqsjson.MessageAttributeValue, body int)
}

// SQS is what the mover calls, with the SDK's own signatures.
type SQS interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

var _ SQS = (sqsapi.Client)(nil)
