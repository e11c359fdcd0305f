package envelope_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsjson"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// delivered receives what AWS (here moto) put in the queue, as sqsjson
// messages: the detector is checked on what actually arrives, not only on
// bodies written from the documentation.
func delivered(t *testing.T, c *sqs.Client, url string, want int) []sqsjson.Message {
	t.Helper()
	var out []sqsjson.Message
	deadline := time.Now().Add(10 * time.Second)
	for len(out) < want && time.Now().Before(deadline) {
		r, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10,
			WaitTimeSeconds: 1, MessageAttributeNames: []string{"All"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range r.Messages {
			out = append(out, sqsjson.Message{MessageId: aws.ToString(m.MessageId), Body: aws.ToString(m.Body)})
		}
	}
	if len(out) != want {
		t.Fatalf("%d messages arrived, want %d", len(out), want)
	}
	return out
}

func queue(t *testing.T, c *sqs.Client, name string) (url, arn string) {
	t.Helper()
	ctx := context.Background()
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(localaws.UniqueName(name))})
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{"QueueArn"}})
	if err != nil {
		t.Fatal(err)
	}
	return *q.QueueUrl, a.Attributes["QueueArn"]
}

func TestMotoSNSNotification(t *testing.T) {
	cfg := localaws.Config(t)
	ctx := context.Background()
	q := sqs.NewFromConfig(cfg)
	url, arn := queue(t, q, "sns-sub")
	s := sns.NewFromConfig(cfg)
	topic, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(localaws.UniqueName("orders"))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sqs"), Endpoint: &arn}); err != nil {
		t.Fatal(err)
	}
	payload := `{"order_id":"ord-000001","version":2,"note":"caf\u00e9 \"quoted\""}`
	if _, err := s.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: &payload, Subject: aws.String("order placed"),
		MessageAttributes: map[string]snstypes.MessageAttributeValue{"tenant": {DataType: aws.String("String"), StringValue: aws.String("acme")}}}); err != nil {
		t.Fatal(err)
	}
	m := delivered(t, q, url, 1)[0]
	e := envelope.Detect(&m)
	if e.Kind != envelope.KindSNS || string(e.Payload) != payload || !e.PayloadJSON {
		t.Fatalf("moto's notification read as %s with payload %q; body:\n%s", e.Kind, e.Payload, m.Body)
	}
	o := e.Origin().SNS
	if o == nil || o.TopicArn != *topic.TopicArn || o.Subject != "order placed" || o.Message != payload ||
		o.MessageAttributes["tenant"] != (envelope.SNSAttribute{Type: "String", Value: "acme"}) {
		t.Errorf("origin %+v", o)
	}
}

func TestMotoEventBridgeTarget(t *testing.T) {
	cfg := localaws.Config(t)
	ctx := context.Background()
	q := sqs.NewFromConfig(cfg)
	url, arn := queue(t, q, "eb-target")
	eb := eventbridge.NewFromConfig(cfg)
	rule := localaws.UniqueName("orders-rule")
	source := localaws.UniqueName("com.example.orders")
	pattern, _ := json.Marshal(map[string]any{"source": []string{source}})
	if _, err := eb.PutRule(ctx, &eventbridge.PutRuleInput{Name: &rule, EventPattern: aws.String(string(pattern))}); err != nil {
		t.Fatal(err)
	}
	if _, err := eb.PutTargets(ctx, &eventbridge.PutTargetsInput{Rule: &rule, Targets: []ebtypes.Target{{Id: aws.String("q"), Arn: &arn}}}); err != nil {
		t.Fatal(err)
	}
	detail := `{"order_id":"ord-000002","version":2}`
	if _, err := eb.PutEvents(ctx, &eventbridge.PutEventsInput{Entries: []ebtypes.PutEventsRequestEntry{{
		Source: &source, DetailType: aws.String("OrderPlaced"), Detail: &detail, Resources: []string{"arn:aws:s3:::orders"}}}}); err != nil {
		t.Fatal(err)
	}
	m := delivered(t, q, url, 1)[0]
	e := envelope.Detect(&m)
	var got, want any
	_ = json.Unmarshal(e.Payload, &got)
	_ = json.Unmarshal([]byte(detail), &want)
	if e.Kind != envelope.KindEventBridge || e.Source != source || e.DetailType != "OrderPlaced" || !jsonEqual(got, want) {
		t.Fatalf("moto's event read as %s (%s / %s) with payload %s; body:\n%s", e.Kind, e.Source, e.DetailType, e.Payload, m.Body)
	}
	if o := e.Origin().EventBridge; o == nil || len(o.Resources) != 1 || o.Resources[0] != "arn:aws:s3:::orders" || o.Time == "" {
		t.Errorf("origin %+v", o)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
