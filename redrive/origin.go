package redrive

import (
	"context"
	"fmt"
	"sort"
	"strings"

	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// originCandidate is a place the DLQ's messages came from, and why.
type originCandidate struct {
	ref TargetRef
	why string
}

// originSample is how many messages the origin look peeks at.
const originSample = 50

// originCandidates lists where the DLQ's messages came from: what their
// envelopes name (an SNS TopicArn, an on-failure record's functionArn, an
// EventBridge target DLQ's TARGET_ARN or RULE_ARN) and the functions whose
// DeadLetterConfig is this queue. The peek hides each message a second.
func originCandidates(ctx context.Context, env *Env, dlq *sqsapi.Queue) ([]originCandidate, error) {
	counts := map[TargetRef]int{}
	whys := map[TargetRef]string{}
	if dlq.Depth.Visible > 0 {
		res, err := sqsapi.Peek(ctx, env.SQS, dlq, sqsapi.PeekOptions{Max: originSample, Visibility: 1, Wait: 1})
		if err != nil {
			return nil, fmt.Errorf("look at %s's messages: %w", dlq.Name, err)
		}
		sqsapi.Release(context.WithoutCancel(ctx), env.SQS, dlq.URL, res.Handles)
		for i := range res.Messages {
			if t, why := messageOrigin(&res.Messages[i]); t.Kind != "" {
				counts[t]++
				whys[t] = why
			}
		}
	}
	fns, err := deadLetterFunctions(ctx, env, dlq)
	if err != nil {
		return nil, err
	}
	for _, fn := range fns {
		t := TargetRef{Kind: KindLambda, Ref: fn}
		if _, ok := counts[t]; !ok {
			whys[t] = "the function whose DeadLetterConfig is " + dlq.Name
		}
		counts[t]++
	}
	out := make([]originCandidate, 0, len(counts))
	for t := range counts {
		why := whys[t]
		if !strings.Contains(why, "DeadLetterConfig") {
			why = fmt.Sprintf("%s of %s looked at", why, plural.Of(counts[t], "message"))
		}
		out = append(out, originCandidate{ref: t, why: why})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ref.String() < out[j].ref.String() })
	return out, nil
}

// messageOrigin is where one message came from, by its envelope. A
// function's DLQ message names no function (the DeadLetterConfig does); a
// notification or event inside a function's record is the function's
// input, not where to redrive.
func messageOrigin(m *sqsjson.Message) (TargetRef, string) {
	env := envelope.Detect(m)
	o := env.Origin()
	switch env.Kind {
	case envelope.KindSNS:
		if o.SNS != nil && o.SNS.TopicArn != "" {
			return TargetRef{Kind: KindSNS, Ref: o.SNS.TopicArn}, "the TopicArn"
		}
	case envelope.KindLambdaDestination:
		if o.Lambda != nil && o.Lambda.FunctionArn != "" {
			return TargetRef{Kind: KindLambda, Ref: strings.TrimSuffix(o.Lambda.FunctionArn, ":$LATEST")}, "the on-failure record's functionArn"
		}
	case envelope.KindEventBridgeDLQ:
		if o.Rule != nil {
			return ruleOrigin(o.Rule)
		}
	}
	return TargetRef{}, ""
}

// ruleOrigin is where an EventBridge target DLQ message goes back to: the
// target that failed when it is a function, topic or bus; else the rule's
// bus, where every matching rule sees the event again.
func ruleOrigin(r *envelope.RuleOrigin) (TargetRef, string) {
	switch svc := ARNService(r.TargetArn); {
	case svc == KindLambda || svc == KindSNS:
		return TargetRef{Kind: svc, Ref: r.TargetArn}, "the TARGET_ARN"
	case svc == KindEvents && strings.Contains(r.TargetArn, ":event-bus/"):
		return TargetRef{Kind: KindEvents, Ref: r.TargetArn}, "the TARGET_ARN"
	}
	rule, err := awsarn.Parse(r.RuleArn)
	if err != nil || !strings.HasPrefix(rule.Resource, "rule/") {
		return TargetRef{}, ""
	}
	bus := "default"
	if path := strings.Split(strings.TrimPrefix(rule.Resource, "rule/"), "/"); len(path) == 2 {
		bus = path[0]
	}
	rule.Resource = "event-bus/" + bus
	return TargetRef{Kind: KindEvents, Ref: rule.String()}, "the RULE_ARN's bus"
}

// deadLetterFunctions lists the functions whose DeadLetterConfig is dlq.
// A refused ListFunctions is a warning: the messages may still name one.
func deadLetterFunctions(ctx context.Context, env *Env, dlq *sqsapi.Queue) ([]string, error) {
	c, err := env.Lambda(ctx)
	if err != nil {
		return nil, err
	}
	fns, err := lambdaapi.DeadLetterFunctions(ctx, c, dlq.ARN)
	if err != nil && sqsapi.IsUnsupportedOrDenied(err) {
		env.Warn("functions whose DeadLetterConfig is %s unknown: %v", dlq.Name, err)
		return fns, nil
	}
	return fns, err
}
