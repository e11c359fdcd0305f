package consumer

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/lambda"
)

// Lambda is what reading a queue's consumers calls (its mappings, their
// functions), with the SDK's signatures: *lambda.Client satisfies it.
type Lambda interface {
	ListEventSourceMappings(ctx context.Context, in *lambda.ListEventSourceMappingsInput, optFns ...func(*lambda.Options)) (*lambda.ListEventSourceMappingsOutput, error)
	GetFunction(ctx context.Context, in *lambda.GetFunctionInput, optFns ...func(*lambda.Options)) (*lambda.GetFunctionOutput, error)
	// GetFunctionConcurrency reads a mapped function's reserved
	// concurrency: 0 stops it with its mapping still Enabled.
	GetFunctionConcurrency(ctx context.Context, in *lambda.GetFunctionConcurrencyInput, optFns ...func(*lambda.Options)) (*lambda.GetFunctionConcurrencyOutput, error)
}

var _ Lambda = (*lambda.Client)(nil)
