package lambdaapi

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/mfdlq/mfdlq/awserr"
)

// FunctionsAPI is what finds the functions that send their failed
// asynchronous invocations to a queue, with the SDK's signatures.
type FunctionsAPI interface {
	lambda.ListFunctionsAPIClient
	GetFunctionEventInvokeConfig(ctx context.Context, in *lambda.GetFunctionEventInvokeConfigInput, optFns ...func(*lambda.Options)) (*lambda.GetFunctionEventInvokeConfigOutput, error)
}

var _ FunctionsAPI = (*lambda.Client)(nil)

// MaxFunctionPages bounds the ListFunctions pages read when looking for a
// function that sends to a DLQ (50 functions a page).
const MaxFunctionPages = 20

// MaxInvokeConfigLookups bounds the GetFunctionEventInvokeConfig calls made
// looking for on-failure destinations: one per function.
const MaxInvokeConfigLookups = 100

// AsyncFunction is a Lambda function whose failed asynchronous invocations
// land in a DLQ, through its DeadLetterConfig or its on-failure
// destination, with its retry settings (Lambda's defaults when it has no
// event invoke config: 2 retries, 6 hours).
type AsyncFunction struct {
	Name        string
	DeadLetter  bool // DeadLetterConfig.TargetArn is the DLQ
	OnFailure   bool // DestinationConfig.OnFailure.Destination is the DLQ
	MaxRetries  int
	MaxEventAge time.Duration
}

// DeadLetterFunctions lists the ARNs of the functions whose
// DeadLetterConfig is dlqARN. On an error it returns what it found so far.
func DeadLetterFunctions(ctx context.Context, l lambda.ListFunctionsAPIClient, dlqARN string) ([]string, error) {
	var out []string
	err := eachFunction(ctx, l, func(f types.FunctionConfiguration) error {
		if f.DeadLetterConfig != nil && dlqARN != "" && aws.ToString(f.DeadLetterConfig.TargetArn) == dlqARN {
			out = append(out, aws.ToString(f.FunctionArn))
		}
		return nil
	})
	return out, err
}

// AsyncFunctions finds the functions whose failed asynchronous invocations
// land in dlqARN: by DeadLetterConfig (in ListFunctions' answer) and, for a
// DLQ no queue feeds (fedByQueues false), by on-failure destination (one
// call per function, at most MaxInvokeConfigLookups). A function whose
// invoke config cannot be read (none, or not allowed) keeps Lambda's
// defaults. On an error it returns what it found so far.
func AsyncFunctions(ctx context.Context, l FunctionsAPI, dlqARN string, fedByQueues bool) ([]AsyncFunction, error) {
	var out []AsyncFunction
	lookups := 0
	err := eachFunction(ctx, l, func(f types.FunctionConfiguration) error {
		fn := AsyncFunction{Name: aws.ToString(f.FunctionName), MaxRetries: 2, MaxEventAge: 6 * time.Hour}
		fn.DeadLetter = f.DeadLetterConfig != nil && aws.ToString(f.DeadLetterConfig.TargetArn) == dlqARN
		if !fn.DeadLetter && (fedByQueues || lookups >= MaxInvokeConfigLookups) {
			return nil
		}
		lookups++
		cfg, err := l.GetFunctionEventInvokeConfig(ctx, &lambda.GetFunctionEventInvokeConfigInput{FunctionName: f.FunctionArn})
		switch {
		case err == nil:
			fn.apply(cfg, dlqARN)
		case !quietConfigError(err):
			return fmt.Errorf("read %s's asynchronous configuration: %w", fn.Name, err)
		}
		if fn.DeadLetter || fn.OnFailure {
			out = append(out, fn)
		}
		return nil
	})
	return out, err
}

func (fn *AsyncFunction) apply(cfg *lambda.GetFunctionEventInvokeConfigOutput, dlqARN string) {
	if d := cfg.DestinationConfig; d != nil && d.OnFailure != nil && aws.ToString(d.OnFailure.Destination) == dlqARN {
		fn.OnFailure = true
	}
	if cfg.MaximumRetryAttempts != nil {
		fn.MaxRetries = int(*cfg.MaximumRetryAttempts)
	}
	if cfg.MaximumEventAgeInSeconds != nil {
		fn.MaxEventAge = time.Duration(*cfg.MaximumEventAgeInSeconds) * time.Second
	}
}

// quietConfigError is an invoke config that is absent (the function has
// none) or not ours to read: the function keeps Lambda's defaults.
func quietConfigError(err error) bool {
	return awserr.NotFound(err) || awserr.UnsupportedOrDenied(err)
}

// eachFunction calls fn for each function of at most MaxFunctionPages
// pages of ListFunctions.
func eachFunction(ctx context.Context, l lambda.ListFunctionsAPIClient, fn func(types.FunctionConfiguration) error) error {
	p := lambda.NewListFunctionsPaginator(l, &lambda.ListFunctionsInput{})
	for page := 0; p.HasMorePages() && page < MaxFunctionPages; page++ {
		res, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("list functions: %w", err)
		}
		for _, f := range res.Functions {
			if err := fn(f); err != nil {
				return err
			}
		}
	}
	return nil
}
