package redrive

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/mfdlq/mfdlq/redrive/consumer"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/movetask"
	"github.com/mfdlq/mfdlq/redrive/target"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// The AWS calls of the protocol's own reads (consumers) and the
// clients a redrive's destinations need, each with the SDK's signatures:
// the SDK's clients satisfy them as they are.

// Caller tells whose credentials are in use (STS GetCallerIdentity): the
// account a replay's destinations are weighed against.
type Caller interface {
	GetCallerIdentity(ctx context.Context, in *sts.GetCallerIdentityInput, optFns ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error)
}

var _ Caller = (*sts.Client)(nil)

// The message move tasks (redrive/movetask) are sqsapi.Client's.
var _ movetask.API = (sqsapi.Client)(nil)

// LambdaClient is the Lambda calls of a redrive: the fix-deployed check,
// the origin look, and the lambda: target.
type LambdaClient interface {
	consumer.Lambda
	target.FunctionReader
	target.LambdaAPI
	lambda.ListFunctionsAPIClient
}

// SNSClient is the SNS calls of an sns: target and of the look for the
// subscription whose DLQ this is.
type SNSClient interface {
	target.TopicReader
	target.SNSAPI
	target.TopicSubscriptionsAPI
	target.SubscriptionsAPI
}

// EventsClient is the EventBridge calls of an events: target.
type EventsClient interface {
	target.BusReader
	target.EventsAPI
	target.BusRulesAPI
}

// The targets are the mover's: it sends to them in place of a queue.
var (
	_ mover.Target = (*target.LambdaTarget)(nil)
	_ mover.Target = (*target.SNSTarget)(nil)
	_ mover.Target = (*target.EventsTarget)(nil)
)

// peeker is what the --transform preview reads with: the DLQ's SQS or the file.
type peeker interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
}
