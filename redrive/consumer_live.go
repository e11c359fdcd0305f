package redrive

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/redrive/consumer"
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
	states, err := p.reads.mappingsOf(ctx, env, d)
	if err != nil {
		if p.Canary > 0 {
			env.Warn("canary: the Lambda mappings of %s cannot be read (%s): whether anything consumes the canary is not known", dest, untrusted.Shorten(untrusted.Terminal(err.Error()), 200))
		}
		return nil
	}
	var on, off []string
	throttled := false
	for _, m := range states {
		throttled = throttled || m.Zero
		if (lambdaapi.Mapping{State: m.State}).Enabled() && !m.Zero {
			on = append(on, m.Text)
		} else {
			off = append(off, m.Text)
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
			strings.Join(off, ", "), dest, consumer.ResumeText(throttled, dlq))}
	default:
		env.Warn("consumer: %s reads %s: the moved messages wait there until it is resumed (%s)", strings.Join(off, ", "), dest, consumer.ResumeText(throttled, dlq))
	}
	return nil
}

// mappingStates lists the Lambda event source mappings reading queueARN
// (consumer.Mappings); warn says what it could not read.
func mappingStates(ctx context.Context, env *Env, queueARN string, warn func(string, ...any)) ([]consumer.Mapping, error) {
	if env.Lambda == nil {
		return nil, errors.New("no Lambda client")
	}
	l, err := env.Lambda(ctx)
	if err != nil {
		return nil, err
	}
	return consumer.Mappings(ctx, l, queueARN, warn)
}
