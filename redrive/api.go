package redrive

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/target"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// The AWS calls of the protocol's own reads (consumers, move tasks) and the
// clients a redrive's destinations need, each with the SDK's signatures:
// the SDK's clients satisfy them as they are.

// Lambda is what the fix-deployed check calls, with the SDK's signatures.
type Lambda interface {
	ListEventSourceMappings(ctx context.Context, in *lambda.ListEventSourceMappingsInput, optFns ...func(*lambda.Options)) (*lambda.ListEventSourceMappingsOutput, error)
	GetFunction(ctx context.Context, in *lambda.GetFunctionInput, optFns ...func(*lambda.Options)) (*lambda.GetFunctionOutput, error)
	// GetFunctionConcurrency reads a mapped function's reserved
	// concurrency: 0 stops it with its mapping still Enabled.
	GetFunctionConcurrency(ctx context.Context, in *lambda.GetFunctionConcurrencyInput, optFns ...func(*lambda.Options)) (*lambda.GetFunctionConcurrencyOutput, error)
}

var _ Lambda = (*lambda.Client)(nil)

// MoveTasks is SQS's own DLQ redrive (message move tasks), with the SDK's
// signatures.
type MoveTasks interface {
	StartMessageMoveTask(ctx context.Context, in *sqs.StartMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.StartMessageMoveTaskOutput, error)
	ListMessageMoveTasks(ctx context.Context, in *sqs.ListMessageMoveTasksInput, optFns ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error)
	CancelMessageMoveTask(ctx context.Context, in *sqs.CancelMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.CancelMessageMoveTaskOutput, error)
}

var _ MoveTasks = (sqsapi.Client)(nil)

// LambdaClient is the Lambda calls of a redrive: the fix-deployed check,
// the origin look, and the lambda: target.
type LambdaClient interface {
	Lambda
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
