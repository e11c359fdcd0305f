package redrive

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// consumersLive checks, for each destination queue, that something will
// consume what the redrive moves there (DestConsumerLive).
func consumersLive(ctx context.Context, env *Env, p *Plan) error {
	for i := range p.Dests {
		if err := DestConsumerLive(ctx, env, p, &p.Dests[i]); err != nil {
			return err
		}
	}
	return nil
}

// DestConsumerLive refuses a canary into a destination queue whose Lambda
// event source mappings are all paused (Disabled, Disabling …): nothing
// would try the fix, nothing would come back, and the canary would pass
// with the fix untried — contain recommends exactly that pause. Resuming
// the mapping, or --canary 0 (no proof asked), is the way on; --force is
// not, since the canary would still prove nothing. Without a canary a
// paused mapping is warned: the messages wait in the queue. A queue no
// mapping reads may have a consumer mfdlq cannot see (ECS, EC2, another
// account): the canary then only shows that nothing came back, said as a
// warning. Destinations that are not queues are not checked here.
func DestConsumerLive(ctx context.Context, env *Env, p *Plan, d *Destination) error {
	if d.Target != nil {
		return nil
	}
	dest, dlq := d.Queue.Name, p.Source.Queue.Name
	states, err := mappingStates(ctx, env, d.Queue.ARN)
	if err != nil {
		if p.Canary > 0 {
			env.Warn("canary: the Lambda mappings of %s cannot be read (%s): whether anything consumes the canary is not known", dest, untrusted.Shorten(untrusted.Terminal(err.Error()), 200))
		}
		return nil
	}
	var on, off []string
	throttled := false
	for _, m := range states {
		throttled = throttled || m.zero
		if (lambdaapi.Mapping{State: m.state}).Enabled() && !m.zero {
			on = append(on, m.text)
		} else {
			off = append(off, m.text)
		}
	}
	switch {
	case len(states) == 0 && p.Canary > 0:
		env.Warn("canary: no Lambda event source mapping reads %s: mfdlq cannot tell what consumes it (ECS, EC2, another account); the canary passes only if its messages leave the queue and none come back", dest)
	case len(off) == 0:
	case len(on) > 0:
		env.Warn("consumer: %s is paused; %s reads %s", strings.Join(off, ", "), strings.Join(on, ", "), dest)
	case p.Canary > 0:
		return &Refusal{Reason: fmt.Sprintf("canary into a paused consumer: %s reads %s: nothing would consume the canary, so it would pass with the fix untried; resume it (%s), or pass --canary 0 to move without a canary",
			strings.Join(off, ", "), dest, resumeText(throttled, dlq))}
	default:
		env.Warn("consumer: %s reads %s: the moved messages wait there until it is resumed (%s)", strings.Join(off, ", "), dest, resumeText(throttled, dlq))
	}
	return nil
}

// resumeText names how to resume a paused consumer: a function stopped by
// reserved concurrency 0 runs again once its reserved concurrency is
// removed; a disabled mapping is enabled again by contain.
func resumeText(throttled bool, dlq string) string {
	mapping := fmt.Sprintf("mfdlq contain --queue %s --resume-mapping", dlq)
	if !throttled {
		return mapping
	}
	return "a function at reserved concurrency 0: aws lambda delete-function-concurrency --function-name NAME, or put back its earlier reserved concurrency; a disabled mapping: " + mapping
}

// mappingState is one event source mapping of a queue: its state, and how
// the refusal names it; zero, that its function's reserved concurrency is
// 0 (AWS's documented way to stop a function: its mapping stays Enabled
// and every invocation is throttled).
type mappingState struct {
	state, text string
	zero        bool
}

// mappingStates lists the Lambda event source mappings reading queueARN.
func mappingStates(ctx context.Context, env *Env, queueARN string) ([]mappingState, error) {
	if env.Lambda == nil {
		return nil, errors.New("no Lambda client")
	}
	l, err := env.Lambda(ctx)
	if err != nil {
		return nil, err
	}
	var out []mappingState
	in := &lambda.ListEventSourceMappingsInput{EventSourceArn: aws.String(queueARN)}
	for {
		page, err := l.ListEventSourceMappings(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list event source mappings: %w", err)
		}
		for _, m := range page.EventSourceMappings {
			st := aws.ToString(m.State)
			fn := aws.ToString(m.FunctionArn)
			ms := mappingState{state: st}
			if (lambdaapi.Mapping{State: st}).Enabled() && fn != "" {
				ms.zero = reservedZero(ctx, env, l, fn)
			}
			how := st
			if ms.zero {
				how += ", reserved concurrency 0"
			}
			ms.text = untrusted.Terminal(fmt.Sprintf("mapping %s (function %s, %s)", aws.ToString(m.UUID), lambdaapi.FunctionName(fn), how))
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
func reservedZero(ctx context.Context, env *Env, l Lambda, fn string) bool {
	out, err := l.GetFunctionConcurrency(ctx, &lambda.GetFunctionConcurrencyInput{FunctionName: aws.String(fn)})
	if err != nil {
		env.Warn("consumer: the reserved concurrency of %s cannot be read (%s): a function stopped by reserved concurrency 0 would read as running", untrusted.Terminal(lambdaapi.FunctionName(fn)), untrusted.Shorten(untrusted.Terminal(err.Error()), 200))
		return false
	}
	return out.ReservedConcurrentExecutions != nil && *out.ReservedConcurrentExecutions == 0
}
