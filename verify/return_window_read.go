package verify

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// FunctionConfigAPI reads a function's timeout and its asynchronous
// configuration (retries, maximum event age).
type FunctionConfigAPI interface {
	GetFunction(ctx context.Context, in *lambda.GetFunctionInput, optFns ...func(*lambda.Options)) (*lambda.GetFunctionOutput, error)
	GetFunctionEventInvokeConfig(ctx context.Context, in *lambda.GetFunctionEventInvokeConfigInput, optFns ...func(*lambda.Options)) (*lambda.GetFunctionEventInvokeConfigOutput, error)
}

// SubscriptionsAPI lists a topic's subscriptions.
type SubscriptionsAPI interface {
	sns.ListSubscriptionsByTopicAPIClient
}

// RulesAPI lists a bus's rules and their targets.
type RulesAPI interface {
	ListRules(ctx context.Context, in *eventbridge.ListRulesInput, optFns ...func(*eventbridge.Options)) (*eventbridge.ListRulesOutput, error)
	ListTargetsByRule(ctx context.Context, in *eventbridge.ListTargetsByRuleInput, optFns ...func(*eventbridge.Options)) (*eventbridge.ListTargetsByRuleOutput, error)
}

var (
	_ FunctionConfigAPI = (*lambda.Client)(nil)
	_ SubscriptionsAPI  = (*sns.Client)(nil)
	_ RulesAPI          = (*eventbridge.Client)(nil)
)

// maxListPages bounds the subscription, rule and target pages read (100
// subscriptions, 100 rules a page).
const maxListPages = 10

// ReturnWindowReaders are the clients ReadReturnWindow needs; only the target's own
// is called.
type ReturnWindowReaders struct {
	SQS       sqsapi.Client
	Lambda    FunctionConfigAPI
	SNS       SubscriptionsAPI
	Events    RulesAPI
	Region    string
	DLQARN    string
	Function  string // a lambda target's name or ARN, unqualified
	Qualifier string
}

// ReadReturnWindow reads the return window of a redrive to a function, topic or
// bus (r.Target) from the target's own configuration: the function's
// event invoke config (Lambda's documented defaults, 2 retries and 6
// hours, when it has none), or each subscriber queue's attributes.
func ReadReturnWindow(ctx context.Context, rd ReturnWindowReaders, r Redriven) (*ReturnWindow, error) {
	end := r.moveEnd()
	switch r.Target {
	case "lambda":
		return readLambdaReturnWindow(ctx, rd, end)
	case "sns":
		subs, unqueued, err := topicSubscribers(ctx, rd, r.DestURL)
		if err != nil {
			return nil, err
		}
		return SubscriberReturnWindow(end, subs, rd.DLQARN, unqueued), nil
	case "events":
		subs, unqueued, err := busSubscribers(ctx, rd, r.DestURL)
		if err != nil {
			return nil, err
		}
		w := SubscriberReturnWindow(end, subs, rd.DLQARN, unqueued)
		w.Unchecked = append(w.Unchecked, "that EventBridge delivered every redriven event: it retries a failed delivery for up to its target's maximum event age (24 hours by default) before the target's own DLQ")
		return w, nil
	}
	return nil, fmt.Errorf("no return window for target %q", r.Target)
}

func readLambdaReturnWindow(ctx context.Context, rd ReturnWindowReaders, end time.Time) (*ReturnWindow, error) {
	var q *string
	if rd.Qualifier != "" {
		q = aws.String(rd.Qualifier)
	}
	// Without lambda:GetFunction the timeout is unknown: Lambda's
	// maximum (15 minutes) keeps the return window on the safe side.
	timeout := 15 * time.Minute
	group := LogGroupOf(lambdaapi.FunctionName(rd.Function), "")
	fn, err := rd.Lambda.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(rd.Function), Qualifier: q})
	switch {
	case err == nil && fn.Configuration != nil:
		timeout = time.Duration(aws.ToInt32(fn.Configuration.Timeout)) * time.Second
		if lc := fn.Configuration.LoggingConfig; lc != nil {
			group = LogGroupOf(lambdaapi.FunctionName(rd.Function), aws.ToString(lc.LogGroup))
		}
	case err != nil && !awserr.UnsupportedOrDenied(err):
		return nil, fmt.Errorf("read function %s: %w", rd.Function, err)
	}
	retries, maxAge, source := 2, 6*time.Hour, "Lambda's default: the function has no event invoke config"
	cfg, err := rd.Lambda.GetFunctionEventInvokeConfig(ctx, &lambda.GetFunctionEventInvokeConfigInput{FunctionName: aws.String(rd.Function), Qualifier: q})
	switch {
	case awserr.NotFound(err):
	case awserr.UnsupportedOrDenied(err):
		source = "Lambda's default: its event invoke config could not be read"
	case err != nil:
		return nil, fmt.Errorf("read %s's asynchronous configuration: %w", rd.Function, err)
	default:
		source = "its event invoke config"
		if cfg.MaximumRetryAttempts != nil {
			retries = int(*cfg.MaximumRetryAttempts)
		}
		if cfg.MaximumEventAgeInSeconds != nil {
			maxAge = time.Duration(*cfg.MaximumEventAgeInSeconds) * time.Second
		}
	}
	w := LambdaReturnWindow(end, timeout, retries, maxAge, source)
	w.LogGroup = group
	return w, nil
}

// topicSubscribers reads the topic's SQS subscribers' attributes; other
// protocols are named in unqueued.
func topicSubscribers(ctx context.Context, rd ReturnWindowReaders, topic string) (subs []Subscriber, unqueued []string, err error) {
	p := sns.NewListSubscriptionsByTopicPaginator(rd.SNS, &sns.ListSubscriptionsByTopicInput{TopicArn: aws.String(topic)})
	for page := 0; p.HasMorePages() && page < maxListPages; page++ {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("list the subscriptions of %s: %w", topic, err)
		}
		for _, s := range out.Subscriptions {
			if aws.ToString(s.Protocol) != "sqs" {
				unqueued = append(unqueued, aws.ToString(s.Protocol)+" subscriber "+aws.ToString(s.Endpoint))
				continue
			}
			sub, err := readSubscriber(ctx, rd, aws.ToString(s.Endpoint))
			if err != nil {
				return nil, nil, err
			}
			subs = append(subs, sub)
		}
	}
	return subs, unqueued, nil
}

// busSubscribers reads the SQS targets of the bus's rules; other targets
// are named in unqueued.
func busSubscribers(ctx context.Context, rd ReturnWindowReaders, bus string) (subs []Subscriber, unqueued []string, err error) {
	var next *string
	for page := 0; page < maxListPages; page++ {
		out, err := rd.Events.ListRules(ctx, &eventbridge.ListRulesInput{EventBusName: aws.String(bus), NextToken: next})
		if err != nil {
			return nil, nil, fmt.Errorf("list the rules of %s: %w", bus, err)
		}
		for _, rule := range out.Rules {
			targets, err := rd.Events.ListTargetsByRule(ctx, &eventbridge.ListTargetsByRuleInput{Rule: rule.Name, EventBusName: aws.String(bus)})
			if err != nil {
				return nil, nil, fmt.Errorf("list the targets of rule %s: %w", aws.ToString(rule.Name), err)
			}
			for _, t := range targets.Targets {
				arn := aws.ToString(t.Arn)
				if a, err := awsarn.Parse(arn); err != nil || a.Service != "sqs" {
					unqueued = append(unqueued, "rule "+aws.ToString(rule.Name)+"'s target "+arn)
					continue
				}
				sub, err := readSubscriber(ctx, rd, arn)
				if err != nil {
					return nil, nil, err
				}
				subs = append(subs, sub)
			}
		}
		if next = out.NextToken; next == nil {
			break
		}
	}
	return subs, unqueued, nil
}

func readSubscriber(ctx context.Context, rd ReturnWindowReaders, queueARN string) (Subscriber, error) {
	q, err := sqsapi.Resolve(ctx, rd.SQS, queueARN, rd.Region)
	if err != nil {
		return Subscriber{}, fmt.Errorf("read subscriber queue %s: %w", queueARN, err)
	}
	s := Subscriber{Queue: q.Name, URL: q.URL, Visibility: q.Visibility, Delay: q.Delay()}
	if p := q.RedrivePolicy; p != nil {
		s.MaxReceiveCount, s.DeadLetterARN = p.MaxReceiveCount, p.DeadLetterTargetArn
	}
	return s, nil
}
