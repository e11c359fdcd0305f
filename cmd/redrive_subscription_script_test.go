package cmd

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/rogpeppe/go-internal/testscript"
)

// sns-sub TOPIC PROTOCOL ENDPOINT [DLQ [raw]] creates TOPIC and subscribes
// ENDPOINT to it (for sqs a queue it creates, for any other protocol the
// endpoint as given), with DLQ (a queue it creates) as the subscription's
// RedrivePolicy and raw message delivery when asked.
func cmdSNSSub(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 || len(args) > 5 {
		ts.Fatalf("usage: sns-sub TOPIC PROTOCOL ENDPOINT [DLQ [raw]]")
	}
	ctx := context.Background()
	s := seeder(ts)
	queueARN := func(name string) string {
		url, err := s.CreateQueue(ctx, name, nil)
		ts.Check(err)
		arn, err := s.Attribute(ctx, url, "QueueArn")
		ts.Check(err)
		return arn
	}
	endpoint := args[2]
	if args[1] == "sqs" {
		endpoint = queueARN(endpoint)
	}
	attrs := map[string]string{}
	if len(args) > 3 {
		attrs["RedrivePolicy"] = `{"deadLetterTargetArn":"` + queueARN(args[3]) + `"}`
	}
	if len(args) == 5 {
		if args[4] != "raw" {
			ts.Fatalf("sns-sub: the fifth argument is raw, got %q", args[4])
		}
		attrs["RawMessageDelivery"] = "true"
	}
	c := sns.NewFromConfig(scriptConfigOf(ts))
	t, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(args[0])})
	ts.Check(err)
	_, err = c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: t.TopicArn, Protocol: aws.String(args[1]), Endpoint: aws.String(endpoint),
		Attributes: attrs, ReturnSubscriptionArn: true})
	if err != nil && strings.Contains(err.Error(), "InvalidParameter") {
		ts.Fatalf("sns-sub: moto refused the subscription: %v", err)
	}
	ts.Check(err)
}
