package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// TestDLQSubscriptionsMoto: of a topic's subscriptions, only the one whose
// RedrivePolicy names the DLQ is found, with its endpoint and raw setting;
// one naming another DLQ and one with none are not.
func TestDLQSubscriptionsMoto(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	c := sns.NewFromConfig(cfg)
	dlq, endpoint := loopQueues(t)
	otherDLQ, plain := loopQueues(t)
	topic, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(localaws.UniqueName("sub-topic"))})
	if err != nil {
		t.Fatal(err)
	}
	sub := func(ep, dlqARN, raw string) string {
		attrs := map[string]string{}
		if dlqARN != "" {
			attrs["RedrivePolicy"] = `{"deadLetterTargetArn":"` + dlqARN + `"}`
		}
		if raw != "" {
			attrs["RawMessageDelivery"] = raw
		}
		out, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String(ep),
			Attributes: attrs, ReturnSubscriptionArn: true})
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToString(out.SubscriptionArn)
	}
	want := sub(endpoint, dlq, "true")
	sub(plain, otherDLQ, "")
	sub(otherDLQ, "", "")
	got, err := DLQSubscriptions(ctx, c, dlq)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != (Subscription{ARN: want, TopicARN: aws.ToString(topic.TopicArn), Protocol: "sqs", Endpoint: endpoint, Raw: true}) {
		t.Fatalf("found %+v, want only %s (raw, endpoint %s)", got, want, endpoint)
	}
	if got, err := DLQSubscriptions(ctx, c, "arn:aws:sqs:us-east-1:123456789012:no-such-dlq"); err != nil || len(got) != 0 {
		t.Fatalf("a DLQ no subscription names: %+v, %v", got, err)
	}
}

func TestRouteOf(t *testing.T) {
	const topic = "arn:aws:sns:us-east-1:123456789012:orders"
	q := Subscription{ARN: topic + ":s1", TopicARN: topic, Protocol: "sqs", Endpoint: "arn:aws:sqs:us-east-1:123456789012:billing"}
	if r, err := RouteOf("orders-dlq", nil); r != nil || err != nil {
		t.Fatalf("no subscription: %+v %v", r, err)
	}
	r, err := RouteOf("orders-dlq", []Subscription{q})
	if err != nil || r.To != q.Endpoint || r.Kind != "" || !strings.Contains(r.Lines[0], "subscription "+q.ARN+" of topic orders") || !strings.Contains(r.Lines[1], "raw message delivery off") {
		t.Fatalf("sqs endpoint: %+v %v", r, err)
	}
	q.Raw = true
	if r, _ := RouteOf("orders-dlq", []Subscription{q}); !strings.Contains(r.Lines[1], "raw message delivery on") {
		t.Fatalf("raw: %q", r.Lines[1])
	}
	fn := Subscription{ARN: topic + ":s2", TopicARN: topic, Protocol: "lambda", Endpoint: "arn:aws:lambda:us-east-1:123456789012:function:billing"}
	if r, err := RouteOf("orders-dlq", []Subscription{fn}); err != nil || r.To != "lambda:"+fn.Endpoint || r.Kind != "lambda" || r.Ref != fn.Endpoint {
		t.Fatalf("lambda endpoint: %+v %v", r, err)
	}
	var re *RouteError
	for _, p := range []string{"https", "http", "email", "email-json", "sms", "firehose", "application"} {
		s := Subscription{ARN: topic + ":s3", TopicARN: topic, Protocol: p, Endpoint: "x\x1b[31m"}
		_, err := RouteOf("orders-dlq", []Subscription{s})
		if !errors.As(err, &re) || re.Usage || !strings.Contains(err.Error(), "mfdlq cannot deliver to a "+p+" endpoint") ||
			!strings.Contains(re.Fix, "--to sns:orders (every subscriber of orders gets each message again") || strings.Contains(err.Error(), "\x1b") {
			t.Fatalf("%s endpoint: %v", p, err)
		}
	}
	if _, err := RouteOf("orders-dlq", []Subscription{q, fn}); !errors.As(err, &re) || !re.Usage || !strings.Contains(err.Error(), "is the DLQ of 2 SNS subscriptions") {
		t.Fatalf("two subscriptions: %v", err)
	}
	if l := FanOutLine(topic, 3, []Subscription{q}); !strings.HasPrefix(l, "fan-out: every one of orders's 3 subscribers gets each message, not only the failed endpoint "+q.Endpoint) {
		t.Fatalf("fan-out line: %q", l)
	}
	if l := FanOutLine(topic+"-other", 3, []Subscription{q}); l != "" {
		t.Fatalf("another topic's subscription: %q", l)
	}
}

// TestSNSEvent: a notification becomes the event SNS invokes a subscriber
// with; anything else is refused.
func TestSNSEvent(t *testing.T) {
	body := `{"Type":"Notification","MessageId":"n-1","TopicArn":"arn:aws:sns:us-east-1:123456789012:orders","Message":"{\"order_id\":\"o-1\"}","Timestamp":"2025-03-02T03:00:00.000Z","SignatureVersion":"1","Signature":"c2ln","SigningCertURL":"https://sns.us-east-1.amazonaws.com/c.pem","UnsubscribeURL":"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe"}`
	b, err := SNSEvent(&sqsjson.Message{MessageId: "m", Body: body}, "arn:aws:sns:us-east-1:123456789012:orders:s1")
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Records []struct {
			EventSource, EventVersion, EventSubscriptionArn string
			Sns                                             map[string]any
		}
	}
	if err := json.Unmarshal(b, &ev); err != nil || len(ev.Records) != 1 {
		t.Fatalf("%s: %v", b, err)
	}
	r := ev.Records[0]
	if r.EventSource != "aws:sns" || r.EventVersion != "1.0" || r.EventSubscriptionArn != "arn:aws:sns:us-east-1:123456789012:orders:s1" {
		t.Errorf("record %+v", r)
	}
	if r.Sns["Message"] != `{"order_id":"o-1"}` || r.Sns["SigningCertUrl"] == nil || r.Sns["UnsubscribeUrl"] == nil || r.Sns["SigningCertURL"] != nil {
		t.Errorf("Sns %v", r.Sns)
	}
	if v, ok := r.Sns["Subject"]; !ok || v != nil {
		t.Errorf("Subject %v %v, want null", v, ok)
	}
	if _, err := SNSEvent(&sqsjson.Message{MessageId: "m", Body: `{"order_id":"o-1"}`}, "s"); err == nil {
		t.Error("a raw body: no error")
	}
}

// subsFake serves pages of subscriptions and their attributes; attrs
// missing an ARN answer NotFound, denied answers AuthorizationError.
type subsFake struct {
	pages  [][]string
	dlqOf  map[string]string
	denied string
	reads  atomic.Int32 // the reads run a few at once
}

func (f *subsFake) ListSubscriptions(_ context.Context, in *sns.ListSubscriptionsInput, _ ...func(*sns.Options)) (*sns.ListSubscriptionsOutput, error) {
	i := 0
	if in.NextToken != nil {
		fmt.Sscan(*in.NextToken, &i)
	}
	out := &sns.ListSubscriptionsOutput{}
	for _, a := range f.pages[i] {
		out.Subscriptions = append(out.Subscriptions, snstypes.Subscription{SubscriptionArn: aws.String(a)})
	}
	if i+1 < len(f.pages) {
		out.NextToken = aws.String(fmt.Sprint(i + 1))
	}
	return out, nil
}

func (f *subsFake) GetSubscriptionAttributes(_ context.Context, in *sns.GetSubscriptionAttributesInput, _ ...func(*sns.Options)) (*sns.GetSubscriptionAttributesOutput, error) {
	f.reads.Add(1)
	a := aws.ToString(in.SubscriptionArn)
	if a == f.denied {
		return nil, &smithy.GenericAPIError{Code: "AuthorizationError", Message: "not allowed"}
	}
	dlq, ok := f.dlqOf[a]
	if !ok {
		return nil, &smithy.GenericAPIError{Code: "NotFound", Message: "gone"}
	}
	return &sns.GetSubscriptionAttributesOutput{Attributes: map[string]string{"SubscriptionArn": a, "TopicArn": "arn:aws:sns:us-east-1:111111111111:t",
		"Protocol": "sqs", "Endpoint": "arn:aws:sqs:us-east-1:111111111111:e", "RedrivePolicy": `{"deadLetterTargetArn":"` + dlq + `"}`}}, nil
}

// TestDLQSubscriptionsBounds: only the DLQ's account and region are read
// (a pending one, another account's and another region's cost no call), a
// subscription gone between list and read is skipped, every page is read,
// a refusal returns what was found with the error, and the page bound
// stops a listing that never ends.
func TestDLQSubscriptionsBounds(t *testing.T) {
	const dlq = "arn:aws:sqs:us-east-1:111111111111:d"
	sub := func(i int) string { return fmt.Sprintf("arn:aws:sns:us-east-1:111111111111:t:%d", i) }
	f := &subsFake{pages: [][]string{{sub(1), "PendingConfirmation", "arn:aws:sns:us-east-1:222222222222:t:9", "arn:aws:sns:eu-west-1:111111111111:t:8"}, {sub(2), sub(3)}},
		dlqOf: map[string]string{sub(1): dlq, sub(3): dlq + "-other"}}
	got, err := DLQSubscriptions(context.Background(), f, dlq)
	if err != nil || len(got) != 1 || got[0].ARN != sub(1) || f.reads.Load() != 3 {
		t.Fatalf("found %+v, %v after %d reads; want %s after 3 (1, 2 gone, 3)", got, err, f.reads.Load(), sub(1))
	}
	f = &subsFake{pages: [][]string{{sub(1), sub(2)}}, dlqOf: map[string]string{sub(1): dlq}, denied: sub(2)}
	got, err = DLQSubscriptions(context.Background(), f, dlq)
	if err == nil || !strings.Contains(err.Error(), "AuthorizationError") || len(got) != 1 {
		t.Fatalf("refused read: %+v, %v; want the one found and the error", got, err)
	}
	endless := &subsFake{pages: make([][]string, maxSubscriptionPages+5), dlqOf: map[string]string{}}
	if _, err := DLQSubscriptions(context.Background(), endless, dlq); !errors.Is(err, ErrSubscriptionsUnchecked) {
		t.Fatalf("endless listing: %v, want ErrSubscriptionsUnchecked", err)
	}
}
