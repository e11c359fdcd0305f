package consumer

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// ResumeText names how to resume a paused consumer: a function stopped by
// reserved concurrency 0 runs again once its reserved concurrency is
// removed; a disabled mapping is enabled again by contain.
func ResumeText(throttled bool, dlq string) string {
	mapping := fmt.Sprintf("mfdlq contain --queue %s --resume-mapping", dlq)
	if !throttled {
		return mapping
	}
	return "a function at reserved concurrency 0: aws lambda delete-function-concurrency --function-name NAME, or put back its earlier reserved concurrency; a disabled mapping: " + mapping
}

// Mapping is one event source mapping of a queue: its State, and how the
// refusal names it (Text); Zero, that its function's reserved concurrency
// is 0 (AWS's documented way to stop a function: its mapping stays
// Enabled and every invocation is throttled).
type Mapping struct {
	State, Text string
	Zero        bool
}

// Mappings lists the Lambda event source mappings reading queueARN, with
// each enabled one's function's reserved concurrency; warn says a
// concurrency that cannot be read.
func Mappings(ctx context.Context, l Lambda, queueARN string, warn func(string, ...any)) ([]Mapping, error) {
	var out []Mapping
	in := &lambda.ListEventSourceMappingsInput{EventSourceArn: aws.String(queueARN)}
	for {
		page, err := l.ListEventSourceMappings(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list event source mappings: %w", err)
		}
		for _, m := range page.EventSourceMappings {
			st := aws.ToString(m.State)
			fn := aws.ToString(m.FunctionArn)
			ms := Mapping{State: st}
			if (lambdaapi.Mapping{State: st}).Enabled() && fn != "" {
				ms.Zero = reservedZero(ctx, l, fn, warn)
			}
			how := st
			if ms.Zero {
				how += ", reserved concurrency 0"
			}
			ms.Text = untrusted.Terminal(fmt.Sprintf("mapping %s (function %s, %s)", aws.ToString(m.UUID), lambdaapi.FunctionName(fn), how))
			out = append(out, ms)
		}
		if aws.ToString(page.NextMarker) == "" {
			return out, nil
		}
		in.Marker = page.NextMarker
	}
}

// reservedZero reads fn's reserved concurrency (GetFunctionConcurrency,
// one call per mapped function): 0 is a stopped function. Unset is none
// reserved; a read that fails (no lambda:GetFunctionConcurrency) is
// warned and taken as running, as before this check.
func reservedZero(ctx context.Context, l Lambda, fn string, warn func(string, ...any)) bool {
	out, err := l.GetFunctionConcurrency(ctx, &lambda.GetFunctionConcurrencyInput{FunctionName: aws.String(fn)})
	if err != nil {
		warn("consumer: the reserved concurrency of %s cannot be read (%s): a function stopped by reserved concurrency 0 would read as running", untrusted.Terminal(lambdaapi.FunctionName(fn)), untrusted.Shorten(untrusted.Terminal(err.Error()), 200))
		return false
	}
	return out.ReservedConcurrentExecutions != nil && *out.ReservedConcurrentExecutions == 0
}
