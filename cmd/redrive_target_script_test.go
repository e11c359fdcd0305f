package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// lambda-async FUNCTION DLQ RETRIES creates FUNCTION with DLQ as its
// on-failure destination and MaximumRetryAttempts RETRIES.
func cmdLambdaAsync(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: lambda-async FUNCTION DLQ RETRIES")
	}
	retries, err := strconv.Atoi(args[2])
	ts.Check(err)
	ctx := context.Background()
	ts.Check(lambdaRole(ts))
	l := scriptLambda(ts)
	fn, err := l.CreateFunction(ctx, &lambda.CreateFunctionInput{
		FunctionName: aws.String(args[0]), Runtime: ltypes.RuntimePython312, Handler: aws.String("h.handler"),
		Role: aws.String("arn:aws:iam::123456789012:role/lambda-role"), Code: &ltypes.FunctionCode{ZipFile: localaws.HandlerZip("None")},
	})
	ts.Check(err)
	s := seeder(ts)
	url, err := s.CreateQueue(ctx, args[1], nil)
	ts.Check(err)
	arn, err := s.Attribute(ctx, url, "QueueArn")
	ts.Check(err)
	_, err = l.PutFunctionEventInvokeConfig(ctx, &lambda.PutFunctionEventInvokeConfigInput{FunctionName: fn.FunctionArn,
		MaximumRetryAttempts: aws.Int32(int32(retries)), MaximumEventAgeInSeconds: aws.Int32(3600),
		DestinationConfig: &ltypes.DestinationConfig{OnFailure: &ltypes.OnFailure{Destination: aws.String(arn)}}})
	ts.Check(err)
}

// sns-topic TOPIC QUEUE creates QUEUE and TOPIC with QUEUE subscribed
// (raw delivery off: the queue receives notifications).
func cmdSNSTopic(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: sns-topic TOPIC QUEUE")
	}
	_, err := subscribedQueue(context.Background(), scriptConfigOf(ts), args[0], args[1])
	ts.Check(err)
}

// sns-publish TOPIC N [ATTR=VALUE...] publishes N messages
// {"order_id":"o-I"} with subject "order I" and the string attributes.
func cmdSNSPublish(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: sns-publish TOPIC N [ATTR=VALUE...]")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	attrs := map[string]snstypes.MessageAttributeValue{}
	for _, a := range args[2:] {
		k, v, _ := strings.Cut(a, "=")
		attrs[k] = snstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	ts.Check(publishOrders(context.Background(), sns.NewFromConfig(scriptConfigOf(ts)), topicARN(args[0]), n, attrs))
}

// events-rule BUS RULE SOURCE QUEUE creates QUEUE, BUS and a rule on it
// matching SOURCE with QUEUE as its target.
func cmdEventsRule(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: events-rule BUS RULE SOURCE QUEUE")
	}
	ctx := context.Background()
	s := seeder(ts)
	url, err := s.CreateQueue(ctx, args[3], nil)
	ts.Check(err)
	arn, err := s.Attribute(ctx, url, "QueueArn")
	ts.Check(err)
	_, err = localaws.RuleToQueue(ctx, scriptConfigOf(ts), args[0], args[1], args[2], arn)
	ts.Check(err)
}

// events-put BUS SOURCE N puts N events of detail-type "Order Placed" with
// detail {"order_id":"o-I","n":I} on BUS.
func cmdEventsPut(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: events-put BUS SOURCE N")
	}
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	ts.Check(putOrders(context.Background(), eventbridge.NewFromConfig(scriptConfigOf(ts)), args[0], args[1], n))
}

// sqs-move FROM TO N [ATTR=VALUE...] moves N messages' bodies from FROM to
// TO with the string attributes: what AWS puts in a topic subscription's,
// a function's or a rule target's DLQ.
func cmdSQSMove(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: sqs-move FROM TO N [ATTR=VALUE...]")
	}
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	attrs := map[string]string{}
	for _, a := range args[3:] {
		k, v, _ := strings.Cut(a, "=")
		attrs[k] = v
	}
	ts.Check(moveBodies(context.Background(), seeder(ts), args[0], args[1], n, attrs))
}

// arrivals QUEUE N [ATTR=VALUE...] drains QUEUE and asserts that the
// payloads o-0 … o-(N-1) arrived exactly once each, inside their SNS or
// EventBridge envelope, with the given SNS message attributes.
func cmdArrivals(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: arrivals QUEUE N [ATTR=VALUE...]")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	ctx := context.Background()
	s := seeder(ts)
	u, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	got, err := drainFor(ctx, s.SQS, *u.QueueUrl, n, 10*time.Second)
	ts.Check(err)
	want := map[string]string{}
	for _, a := range args[2:] {
		k, v, _ := strings.Cut(a, "=")
		want[k] = v
	}
	counts, err := orderCounts(got, want)
	ts.Check(err)
	for i := range n {
		if c := counts[fmt.Sprintf("o-%d", i)]; c != 1 {
			ts.Fatalf("o-%d arrived %d times, want exactly once", i, c)
		}
	}
	if len(got) != n {
		ts.Fatalf("%d arrived, want %d", len(got), n)
	}
}

func scriptConfigOf(ts *testscript.TestScript) aws.Config { return scriptConfig(ts) }

func topicARN(name string) string {
	return "arn:aws:sns:" + localaws.Region + ":" + localaws.Account + ":" + name
}

// subscribedQueue creates queue and subscribes it to topic; it returns the
// queue's URL.
func subscribedQueue(ctx context.Context, cfg aws.Config, topic, queue string) (string, error) {
	s := localaws.NewSeeder(cfg)
	url, err := s.CreateQueue(ctx, queue, nil)
	if err != nil {
		return "", err
	}
	arn, err := s.Attribute(ctx, url, "QueueArn")
	if err != nil {
		return "", err
	}
	_, err = localaws.Subscribe(ctx, cfg, topic, arn)
	return url, err
}

func publishOrders(ctx context.Context, c *sns.Client, topic string, n int, attrs map[string]snstypes.MessageAttributeValue) error {
	for start := 0; start < n; start += 10 {
		var entries []snstypes.PublishBatchRequestEntry
		for i := start; i < min(start+10, n); i++ {
			entries = append(entries, snstypes.PublishBatchRequestEntry{Id: aws.String(strconv.Itoa(i)),
				Message: aws.String(fmt.Sprintf(`{"order_id":"o-%d"}`, i)), Subject: aws.String(fmt.Sprintf("order %d", i)), MessageAttributes: attrs})
		}
		if _, err := c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: aws.String(topic), PublishBatchRequestEntries: entries}); err != nil {
			return err
		}
	}
	return nil
}

func putOrders(ctx context.Context, c *eventbridge.Client, bus, source string, n int) error {
	for start := 0; start < n; start += 10 {
		var entries []ebtypes.PutEventsRequestEntry
		for i := start; i < min(start+10, n); i++ {
			entries = append(entries, ebtypes.PutEventsRequestEntry{EventBusName: aws.String(bus), Source: aws.String(source),
				DetailType: aws.String("Order Placed"), Detail: aws.String(fmt.Sprintf(`{"order_id":"o-%d","n":%d}`, i, i)),
				Resources: []string{"arn:aws:dynamodb:us-east-1:123456789012:table/orders"}})
		}
		out, err := c.PutEvents(ctx, &eventbridge.PutEventsInput{Entries: entries})
		if err != nil {
			return err
		}
		if out.FailedEntryCount > 0 {
			return fmt.Errorf("put events: %d failed", out.FailedEntryCount)
		}
	}
	return nil
}

// moveBodies receives n messages from one queue and sends their bodies to
// another with attrs, deleting them from the first.
func moveBodies(ctx context.Context, s *localaws.Seeder, from, to string, n int, attrs map[string]string) error {
	fu, err := s.SQS.GetQueueUrl(ctx, getURL(from))
	if err != nil {
		return err
	}
	tu, err := s.CreateQueue(ctx, to, nil)
	if err != nil {
		return err
	}
	got, err := drainFor(ctx, s.SQS, *fu.QueueUrl, n, 10*time.Second)
	if err != nil {
		return err
	}
	if len(got) != n {
		return fmt.Errorf("%s holds %d, want %d", from, len(got), n)
	}
	bodies := make([]string, len(got))
	for i, m := range got {
		bodies[i] = aws.ToString(m.Body)
	}
	return s.Send(ctx, tu, bodies, attrs)
}

// drainFor receives and deletes until n messages came or nothing more
// comes within wait.
func drainFor(ctx context.Context, c *sqs.Client, url string, n int, wait time.Duration) ([]types.Message, error) {
	var out []types.Message
	quiet := time.Now().Add(wait)
	for time.Now().Before(quiet) {
		r, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
			MessageAttributeNames: []string{"All"}})
		if err != nil {
			return nil, err
		}
		var del []types.DeleteMessageBatchRequestEntry
		for i, m := range r.Messages {
			out = append(out, m)
			del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
		}
		if len(del) > 0 {
			if _, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: del}); err != nil {
				return nil, err
			}
		}
		if len(r.Messages) > 0 && len(out) < n {
			quiet = time.Now().Add(wait)
		}
		if len(out) >= n {
			// A last short look for extras (duplicates).
			if end := time.Now().Add(2 * time.Second); end.Before(quiet) {
				quiet = end
			}
		}
	}
	return out, nil
}

// orderCounts counts the order ids of the payloads in msgs, checking each
// SNS notification carries the attributes want.
func orderCounts(msgs []types.Message, want map[string]string) (map[string]int, error) {
	counts := map[string]int{}
	for _, m := range msgs {
		msg := sqsjson.Message{Body: aws.ToString(m.Body)}
		env := envelope.Detect(&msg)
		if o := env.Origin().SNS; o != nil {
			for k, v := range want {
				if a, ok := o.MessageAttributes[k]; !ok || a.Value != v {
					return nil, fmt.Errorf("notification %s lost attribute %s=%s: %v", o.MessageID, k, v, o.MessageAttributes)
				}
			}
		}
		var p struct {
			OrderID string `json:"order_id"`
		}
		if err := json.Unmarshal(env.Payload, &p); err != nil || p.OrderID == "" {
			return nil, fmt.Errorf("payload %q is no order (kind %s)", env.Payload, env.Kind)
		}
		counts[p.OrderID]++
	}
	return counts, nil
}

// sqs-holds QUEUE BODIES [ATTR=VALUE...] drains QUEUE and asserts it held
// each line of BODIES exactly once, each with the given string message
// attributes.
func cmdSQSHolds(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: sqs-holds QUEUE BODIES [ATTR=VALUE...]")
	}
	s := seeder(ts)
	ctx := context.Background()
	out, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	msgs, err := s.Drain(ctx, *out.QueueUrl)
	ts.Check(err)
	want := map[string]int{}
	n := 0
	for _, line := range strings.Split(ts.ReadFile(args[1]), "\n") {
		if strings.TrimSpace(line) != "" {
			want[line]++
			n++
		}
	}
	for _, m := range msgs {
		body := aws.ToString(m.Body)
		if want[body] == 0 {
			ts.Fatalf("%s: body not expected or seen twice: %q", args[0], body)
		}
		want[body]--
		for _, a := range args[2:] {
			k, v, _ := strings.Cut(a, "=")
			got, ok := m.MessageAttributes[k]
			if !ok || aws.ToString(got.StringValue) != v || aws.ToString(got.DataType) != "String" {
				ts.Fatalf("%s: message %q lost attribute %s=%s (has %v)", args[0], body, k, v, m.MessageAttributes)
			}
		}
	}
	if len(msgs) != n {
		ts.Fatalf("%s: %d messages, want %d", args[0], len(msgs), n)
	}
}
