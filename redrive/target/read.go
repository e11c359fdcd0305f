package target

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/mfdlq/mfdlq/awserr"
)

// Reading a Lambda, SNS or EventBridge target before the plan: that it
// exists, and what the plan says of it. Each reader is the SDK's own
// signature, so the service clients satisfy them as they are.

// IsNotFound tells whether err is a target (topic, bus, function or its
// asynchronous configuration) that does not exist.
func IsNotFound(err error) bool { return awserr.NotFound(err) }

// ReadTopic tells whether the topic at arn is a FIFO topic; an error that
// IsNotFound when it does not exist.
func ReadTopic(ctx context.Context, c TopicReader, arn string) (fifo bool, err error) {
	out, err := c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(arn)})
	if err != nil {
		return false, err
	}
	return out.Attributes["FifoTopic"] == "true", nil
}

// ReadBus returns the ARN and name of the bus name (a name or an ARN).
func ReadBus(ctx context.Context, c BusReader, name string) (arn, busName string, err error) {
	out, err := c.DescribeEventBus(ctx, &eventbridge.DescribeEventBusInput{Name: aws.String(name)})
	if err != nil {
		return "", "", err
	}
	return aws.ToString(out.Arn), aws.ToString(out.Name), nil
}

// TargetFunction is what a redrive to a function needs to know of it.
type TargetFunction struct {
	ARN     string // as GetFunction gives it: qualified when asked with one
	Version string // the version the qualifier resolves to
	Timeout time.Duration
	// Retries and MaxAge are its asynchronous configuration: Lambda's
	// defaults (2, 6 h) when it has none, or when it could not be read
	// (ConfigErr says why).
	Retries   int
	MaxAge    time.Duration
	ConfigErr error
}

// ReadTargetFunction reads function fn at qualifier ("" for unqualified); an
// error that IsNotFound when it does not exist.
func ReadTargetFunction(ctx context.Context, c FunctionReader, fn, qualifier string) (TargetFunction, error) {
	q := optional(qualifier)
	out, err := c.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(fn), Qualifier: q})
	if err != nil {
		return TargetFunction{}, err
	}
	cfg := out.Configuration
	f := TargetFunction{Version: aws.ToString(cfg.Version), Timeout: time.Duration(aws.ToInt32(cfg.Timeout)) * time.Second, Retries: 2, MaxAge: 6 * time.Hour}
	f.ARN = aws.ToString(cfg.FunctionArn)
	async, err := c.GetFunctionEventInvokeConfig(ctx, &lambda.GetFunctionEventInvokeConfigInput{FunctionName: aws.String(fn), Qualifier: q})
	switch {
	case IsNotFound(err):
	case err != nil:
		f.ConfigErr = err
	default:
		if async.MaximumRetryAttempts != nil {
			f.Retries = int(*async.MaximumRetryAttempts)
		}
		if async.MaximumEventAgeInSeconds != nil {
			f.MaxAge = time.Duration(*async.MaximumEventAgeInSeconds) * time.Second
		}
	}
	return f, nil
}

// FailureTime is how long an asynchronous invocation of f takes to fail
// for good: each attempt up to the timeout, Lambda's waits of one and two
// minutes before the retries, and a margin. A canary waits this long.
func (f TargetFunction) FailureTime() time.Duration {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	d := timeout*time.Duration(f.Retries+1) + 30*time.Second
	if f.Retries >= 1 {
		d += time.Minute
	}
	if f.Retries >= 2 {
		d += 2 * time.Minute
	}
	return d
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
