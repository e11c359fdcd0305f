package check

import (
	"context"

	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// asyncFunctions finds the functions whose failed asynchronous invocations
// land in dlq (lambdaapi.AsyncFunctions). Lambda refusing is a warning:
// unknown, not absent.
func (o *CheckOptions) asyncFunctions(ctx context.Context, l lambdaapi.FunctionsAPI, dlq *sqsapi.Queue, fedByQueues bool) ([]lambdaapi.AsyncFunction, error) {
	fns, err := lambdaapi.AsyncFunctions(ctx, l, dlq.ARN, fedByQueues)
	if err != nil && sqsapi.IsUnsupportedOrDenied(err) {
		o.deps.Warnf("Lambda functions sending to %s unknown: %v", dlq.Name, err)
		return fns, nil
	}
	return fns, err
}
