package target

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// LoopError is a redrive whose destination delivers straight back into
// the DLQ: every message would return under a new MessageId ("moved 4"
// and the DLQ as full as before), or a file replayed into the queue it
// was exported from would double it. Refused before anything is sent;
// Fix is the one line that says what to do instead.
type LoopError struct {
	Reason string
	Fix    string
}

func (e *LoopError) Error() string { return e.Reason + ": " + e.Fix }

// maxLoopPages bounds the pages a loop check reads (100 subscriptions or
// rules a page for SNS, 100 for EventBridge): a topic or bus with more is
// reported, not skipped.
const maxLoopPages = 100

// errLoopUnchecked is a loop check that could not read everything.
var errLoopUnchecked = errors.New("too many to check")

// TopicLoop refuses a redrive to topicArn when the DLQ (dlqARN) is one of
// its SQS subscribers: each published message would land in the DLQ again.
// It counts the topic's subscribers: each gets every message published.
func TopicLoop(ctx context.Context, c TopicSubscriptionsAPI, topicArn, dlqName, dlqARN string) (subscribers int, err error) {
	in := &sns.ListSubscriptionsByTopicInput{TopicArn: aws.String(topicArn)}
	for page := 0; ; page++ {
		if page == maxLoopPages {
			return subscribers, fmt.Errorf("subscriptions of %s: %w (over %d pages)", topicArn, errLoopUnchecked, maxLoopPages)
		}
		out, err := c.ListSubscriptionsByTopic(ctx, in)
		if err != nil {
			return subscribers, fmt.Errorf("list the subscriptions of %s: %w", topicArn, err)
		}
		for _, s := range out.Subscriptions {
			if aws.ToString(s.Protocol) == "sqs" && aws.ToString(s.Endpoint) == dlqARN {
				return subscribers, &LoopError{
					Reason: fmt.Sprintf("%s is subscribed to %s (%s): every message published there comes straight back", dlqName, topicArn, aws.ToString(s.SubscriptionArn)),
					Fix:    "redrive to the consumer's own queue or function with --to, or unsubscribe the DLQ first",
				}
			}
			subscribers++
		}
		if aws.ToString(out.NextToken) == "" {
			return subscribers, nil
		}
		in.NextToken = out.NextToken
	}
}

// BusReturn is a rule target on the bus whose own DLQ is the DLQ: an event
// it fails to deliver again comes back, under a new MessageId. That is how
// an EventBridge target DLQ fills, and a replay to the bus is the way to
// retry it, so it is named in the plan, not refused.
type BusReturn struct{ Rule, Target string }

// BusLoop refuses a redrive to bus (a name or ARN) when one of its rules
// targets the DLQ itself: every event put there would be delivered into
// the DLQ again. It returns the targets whose DLQ is the DLQ (BusReturn).
func BusLoop(ctx context.Context, c BusRulesAPI, bus, dlqName, dlqARN string) ([]BusReturn, error) {
	var returns []BusReturn
	in := &eventbridge.ListRulesInput{EventBusName: aws.String(bus)}
	for page := 0; ; page++ {
		if page == maxLoopPages {
			return nil, fmt.Errorf("rules of %s: %w (over %d pages)", bus, errLoopUnchecked, maxLoopPages)
		}
		out, err := c.ListRules(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list the rules of %s: %w", bus, err)
		}
		for _, r := range out.Rules {
			ret, err := ruleLoop(ctx, c, bus, aws.ToString(r.Name), dlqName, dlqARN)
			if err != nil {
				return nil, err
			}
			returns = append(returns, ret...)
		}
		if aws.ToString(out.NextToken) == "" {
			return returns, nil
		}
		in.NextToken = out.NextToken
	}
}

// ruleLoop checks one rule's targets.
func ruleLoop(ctx context.Context, c BusRulesAPI, bus, rule, dlqName, dlqARN string) ([]BusReturn, error) {
	var returns []BusReturn
	in := &eventbridge.ListTargetsByRuleInput{EventBusName: aws.String(bus), Rule: aws.String(rule)}
	for page := 0; ; page++ {
		if page == maxLoopPages {
			return nil, fmt.Errorf("targets of rule %s: %w (over %d pages)", rule, errLoopUnchecked, maxLoopPages)
		}
		out, err := c.ListTargetsByRule(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list the targets of rule %s on %s: %w", rule, bus, err)
		}
		for _, t := range out.Targets {
			switch {
			case aws.ToString(t.Arn) == dlqARN:
				return nil, &LoopError{
					Reason: fmt.Sprintf("rule %s on %s targets %s itself: every event put there comes straight back", rule, bus, dlqName),
					Fix:    "redrive to the rule's other target with --to (a queue, lambda:FUNCTION or sns:TOPIC), or remove the DLQ from the rule's targets first",
				}
			case t.DeadLetterConfig != nil && aws.ToString(t.DeadLetterConfig.Arn) == dlqARN:
				returns = append(returns, BusReturn{Rule: rule, Target: aws.ToString(t.Arn)})
			}
		}
		if aws.ToString(out.NextToken) == "" {
			return returns, nil
		}
		in.NextToken = out.NextToken
	}
}

// FileLoop refuses a replay of a file into the queue its records were
// exported from (sqsjson.AttrExportedFrom): the messages are still there (an export without
// --delete) or were meant to leave it. next reads the file's records in
// turn (io.EOF at the end).
func FileLoop(next func() (*sqsjson.Message, error), file, destName, destARN string) error {
	n := 0
	for {
		m, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if destARN != "" && m.Attributes[sqsjson.AttrExportedFrom] == destARN {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	verb := map[bool]string{true: "was", false: "were"}[n == 1]
	return &LoopError{
		Reason: fmt.Sprintf("%s of %s %s exported from %s, the destination: replaying them there doubles it", plural.Of(n, "message"), file, verb, destName),
		Fix:    "pass --to the queue that consumes them (the DLQ's source), not the DLQ",
	}
}
