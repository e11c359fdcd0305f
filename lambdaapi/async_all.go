package lambdaapi

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
)

// DeadLetterTargets lists the functions once (at most MaxFunctionPages
// pages) and returns, by queue ARN, those whose DeadLetterConfig sends
// their failed asynchronous invocations there, with their retry settings
// (one GetFunctionEventInvokeConfig each, at most MaxInvokeConfigLookups):
// what check --all judges for every DLQ of an account and region without
// listing the functions once per DLQ. On-failure destinations need one
// call per function and are left to check --queue.
func DeadLetterTargets(ctx context.Context, l FunctionsAPI) (map[string][]AsyncFunction, error) {
	out := map[string][]AsyncFunction{}
	lookups := 0
	err := eachFunction(ctx, l, func(f types.FunctionConfiguration) error {
		target := ""
		if f.DeadLetterConfig != nil {
			target = aws.ToString(f.DeadLetterConfig.TargetArn)
		}
		if target == "" {
			return nil
		}
		fn := AsyncFunction{Name: aws.ToString(f.FunctionName), DeadLetter: true, MaxRetries: 2, MaxEventAge: 6 * time.Hour}
		if lookups < MaxInvokeConfigLookups {
			lookups++
			cfg, err := l.GetFunctionEventInvokeConfig(ctx, &lambda.GetFunctionEventInvokeConfigInput{FunctionName: f.FunctionArn})
			switch {
			case err == nil:
				fn.apply(cfg, target)
			case !quietConfigError(err):
				return fmt.Errorf("read %s's asynchronous configuration: %w", fn.Name, err)
			}
		}
		out[target] = append(out[target], fn)
		return nil
	})
	return out, err
}
