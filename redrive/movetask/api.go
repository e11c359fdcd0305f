// Package movetask is SQS's own DLQ redrive, the message move task: start
// one once (it is not idempotent), follow it to its end or cancel it, and
// list the one a colleague's console redrive left running. redrive's
// --native and its move-task guard use it; it never imports redrive.
package movetask

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// API is SQS's own DLQ redrive (message move tasks), with the SDK's
// signatures: sqsapi.Client satisfies it as it is.
type API interface {
	StartMessageMoveTask(ctx context.Context, in *sqs.StartMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.StartMessageMoveTaskOutput, error)
	ListMessageMoveTasks(ctx context.Context, in *sqs.ListMessageMoveTasksInput, optFns ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error)
	CancelMessageMoveTask(ctx context.Context, in *sqs.CancelMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.CancelMessageMoveTaskOutput, error)
}
