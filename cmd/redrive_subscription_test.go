package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// A Lambda subscriber's DLQ holds the notifications SNS failed to deliver
// to it: without --to each goes back to that function alone, invoked
// asynchronously with the event SNS invokes a subscriber with (the
// subscription in the record, the notification under Sns); the topic's
// queue subscriber gets nothing.
func TestRedriveToLambdaSubscriber(t *testing.T) {
	t.Parallel()
	name := localaws.UniqueName("sub")
	srv, url, fnARN := lambdaSetup(t, name)
	cfg := localaws.Config(t)
	ctx := context.Background()
	s := localaws.NewSeeder(cfg)
	dlq, err := s.CreateQueue(ctx, name+"-dlq", nil)
	if err != nil {
		t.Fatal(err)
	}
	dlqARN, err := s.Attribute(ctx, dlq, "QueueArn")
	if err != nil {
		t.Fatal(err)
	}
	other, err := subscribedQueue(ctx, cfg, name+"-orders", name+"-shipping")
	if err != nil {
		t.Fatal(err)
	}
	topic := topicARN(name + "-orders")
	sub, err := sns.NewFromConfig(cfg).Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("lambda"),
		Endpoint: aws.String(fnARN), Attributes: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqARN + `"}`}, ReturnSubscriptionArn: true})
	if err != nil {
		t.Fatal(err)
	}
	const n = 12
	var bodies []string
	for i := range n {
		bodies = append(bodies, fmt.Sprintf(`{"Type":"Notification","MessageId":"n-%d","TopicArn":"%s","Subject":"order %d","Message":"{\"order_id\":\"o-%d\"}","Timestamp":"2025-03-02T03:00:00.000Z","SignatureVersion":"1","Signature":"c2ln","SigningCertURL":"https://sns.us-east-1.amazonaws.com/c.pem","UnsubscribeURL":"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe","MessageAttributes":{"tenant":{"Type":"String","Value":"acme"}}}`, i, topic, i, i))
	}
	bodies = append(bodies, `{"order_id":"o-raw"}`) // no notification: fails alone, stays
	if err := s.Send(ctx, dlq, bodies, nil); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	code := run(ctx, d, []string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--yes", "--endpoint-url", url, "--incident", t.TempDir()})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("mfdlq's stderr:\n%s", stderr.String())
		}
	})
	if code != cmdutil.ExitCheckFailed { // the one that is no notification stays
		t.Fatalf("exit %d, want %d (one message left)\n%s", code, cmdutil.ExitCheckFailed, stderr.String())
	}
	for _, want := range []string{
		"destination: account 123456789012 · region us-east-1 · lambda:" + name + " (" + fnARN + ")",
		"target: " + name + "-dlq is the DLQ of SNS subscription " + aws.ToString(sub.SubscriptionArn) + " of topic " + name + "-orders: its messages go back to that subscription's endpoint only, the function " + fnARN,
		"target: Lambda function " + name + ", $LATEST (unqualified), invoked asynchronously",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q\n%s", want, stderr.String())
		}
	}
	got := map[string]int{}
	for _, inv := range srv.Invocations() {
		var ev struct {
			Records []struct {
				EventSource, EventSubscriptionArn string
				Sns                               struct{ Message, Subject, TopicArn, SigningCertUrl string }
			}
		}
		if err := json.Unmarshal(inv.Payload, &ev); err != nil || len(ev.Records) != 1 {
			t.Fatalf("payload %s: %v", inv.Payload, err)
		}
		r := ev.Records[0]
		if inv.Function != fnARN || r.EventSource != "aws:sns" || r.EventSubscriptionArn != aws.ToString(sub.SubscriptionArn) || r.Sns.TopicArn != topic || r.Sns.SigningCertUrl == "" {
			t.Errorf("invocation of %s: %+v", inv.Function, r)
		}
		got[r.Sns.Message]++
	}
	for i := range n {
		if c := got[fmt.Sprintf(`{"order_id":"o-%d"}`, i)]; c != 1 {
			t.Errorf("o-%d invoked %d times, want once", i, c)
		}
	}
	if len(srv.Invocations()) != n {
		t.Errorf("%d invocations, want %d", len(srv.Invocations()), n)
	}
	if v, f, _ := s.Depth(ctx, dlq); v+f != 1 {
		t.Errorf("DLQ holds %d, want the 1 that is no notification", v+f)
	}
	if v, f, _ := s.Depth(ctx, other); v+f != 0 {
		t.Errorf("the topic's other subscriber got %d", v+f)
	}
}
