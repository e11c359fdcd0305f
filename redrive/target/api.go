package target

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sns"
)

// The AWS calls of the targets and of the checks that read them, each with
// the SDK's own signatures so that the SDK's clients satisfy them as they are.

// EventsAPI is the EventBridge call a bus target makes, with the SDK's
// signature.
type EventsAPI interface {
	PutEvents(ctx context.Context, in *eventbridge.PutEventsInput, optFns ...func(*eventbridge.Options)) (*eventbridge.PutEventsOutput, error)
}

var _ EventsAPI = (*eventbridge.Client)(nil)

// LambdaAPI is the Lambda call a function target makes, with the SDK's
// signature.
type LambdaAPI interface {
	Invoke(ctx context.Context, in *lambda.InvokeInput, optFns ...func(*lambda.Options)) (*lambda.InvokeOutput, error)
}

var _ LambdaAPI = (*lambda.Client)(nil)

// SNSAPI is the SNS call a topic target makes, with the SDK's signature.
type SNSAPI interface {
	PublishBatch(ctx context.Context, in *sns.PublishBatchInput, optFns ...func(*sns.Options)) (*sns.PublishBatchOutput, error)
}

var _ SNSAPI = (*sns.Client)(nil)

// TopicReader is the SNS call that reads a topic.
type TopicReader interface {
	GetTopicAttributes(ctx context.Context, in *sns.GetTopicAttributesInput, optFns ...func(*sns.Options)) (*sns.GetTopicAttributesOutput, error)
}

// BusReader is the EventBridge call that reads a bus.
type BusReader interface {
	DescribeEventBus(ctx context.Context, in *eventbridge.DescribeEventBusInput, optFns ...func(*eventbridge.Options)) (*eventbridge.DescribeEventBusOutput, error)
}

// FunctionReader is the Lambda calls that read a function and its
// asynchronous configuration.
type FunctionReader interface {
	GetFunction(ctx context.Context, in *lambda.GetFunctionInput, optFns ...func(*lambda.Options)) (*lambda.GetFunctionOutput, error)
	GetFunctionEventInvokeConfig(ctx context.Context, in *lambda.GetFunctionEventInvokeConfigInput, optFns ...func(*lambda.Options)) (*lambda.GetFunctionEventInvokeConfigOutput, error)
}

var (
	_ TopicReader    = (*sns.Client)(nil)
	_ BusReader      = (*eventbridge.Client)(nil)
	_ FunctionReader = (*lambda.Client)(nil)
)

// TopicSubscriptionsAPI is the SNS call of the topic loop check, with the
// SDK's signature.
type TopicSubscriptionsAPI interface {
	ListSubscriptionsByTopic(ctx context.Context, in *sns.ListSubscriptionsByTopicInput, optFns ...func(*sns.Options)) (*sns.ListSubscriptionsByTopicOutput, error)
}

var _ TopicSubscriptionsAPI = (*sns.Client)(nil)

// BusRulesAPI is the EventBridge calls of the bus loop check, with the
// SDK's signatures.
type BusRulesAPI interface {
	ListRules(ctx context.Context, in *eventbridge.ListRulesInput, optFns ...func(*eventbridge.Options)) (*eventbridge.ListRulesOutput, error)
	ListTargetsByRule(ctx context.Context, in *eventbridge.ListTargetsByRuleInput, optFns ...func(*eventbridge.Options)) (*eventbridge.ListTargetsByRuleOutput, error)
}

var _ BusRulesAPI = (*eventbridge.Client)(nil)
