package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/vitals"
)

// maxInvokeConfigLookups bounds the GetFunctionEventInvokeConfig calls a
// check makes looking for on-failure destinations: one per function.
const maxInvokeConfigLookups = 100

// asyncFunctions finds the functions whose failed asynchronous invocations
// land in dlq: by DeadLetterConfig (in ListFunctions' answer) and, for a
// DLQ no queue feeds, by on-failure destination (one call per function, at
// most maxInvokeConfigLookups). Lambda refusing is a warning: unknown, not
// absent.
func (o *checkOptions) asyncFunctions(ctx context.Context, l *lambda.Client, dlq *sqsapi.Queue, fedByQueues bool) ([]vitals.AsyncFunction, error) {
	var out []vitals.AsyncFunction
	lookups := 0
	p := lambda.NewListFunctionsPaginator(l, &lambda.ListFunctionsInput{})
	for page := 0; p.HasMorePages() && page < maxFunctionPages; page++ {
		res, err := p.NextPage(ctx)
		if err != nil {
			if sqsapi.IsUnsupportedOrDenied(err) {
				o.deps.warnf("Lambda functions sending to %s unknown: %v", dlq.Name, err)
				return out, nil
			}
			return nil, fmt.Errorf("list functions: %w", err)
		}
		for _, f := range res.Functions {
			fn := vitals.AsyncFunction{Name: aws.ToString(f.FunctionName), MaxRetries: 2, MaxEventAge: 6 * time.Hour}
			fn.DeadLetter = f.DeadLetterConfig != nil && aws.ToString(f.DeadLetterConfig.TargetArn) == dlq.ARN
			if !fn.DeadLetter && (fedByQueues || lookups >= maxInvokeConfigLookups) {
				continue
			}
			lookups++
			cfg, err := l.GetFunctionEventInvokeConfig(ctx, &lambda.GetFunctionEventInvokeConfigInput{FunctionName: f.FunctionArn})
			if err == nil {
				applyInvokeConfig(&fn, cfg.DestinationConfig, cfg.MaximumRetryAttempts, cfg.MaximumEventAgeInSeconds, dlq.ARN)
			} else if !isNotFound(err) && !sqsapi.IsUnsupportedOrDenied(err) {
				return nil, fmt.Errorf("read %s's asynchronous configuration: %w", fn.Name, err)
			}
			if fn.DeadLetter || fn.OnFailure {
				out = append(out, fn)
			}
		}
	}
	return out, nil
}

func applyInvokeConfig(fn *vitals.AsyncFunction, dest *ltypes.DestinationConfig, retries, age *int32, dlqARN string) {
	if dest != nil && dest.OnFailure != nil && aws.ToString(dest.OnFailure.Destination) == dlqARN {
		fn.OnFailure = true
	}
	if retries != nil {
		fn.MaxRetries = int(*retries)
	}
	if age != nil {
		fn.MaxEventAge = time.Duration(*age) * time.Second
	}
}
