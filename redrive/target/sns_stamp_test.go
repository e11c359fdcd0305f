package target

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/sqsjson"
)

var _ mover.AttributeTarget = (*SNSTarget)(nil)

// notification is an SNS notification as a subscription's DLQ holds it,
// with attrs as its MessageAttributes.
func notification(id, message string, attrs map[string]string) string {
	ma := map[string]map[string]string{}
	for k, v := range attrs {
		ma[k] = map[string]string{"Type": "String", "Value": v}
	}
	b, _ := json.Marshal(map[string]any{"Type": "Notification", "MessageId": id, "TopicArn": "arn:aws:sns:us-east-1:123456789012:orders",
		"Message": message, "Timestamp": "2026-12-02T03:00:00.000Z", "SignatureVersion": "1", "Signature": "x",
		"SigningCertURL": "https://sns.us-east-1.amazonaws.com/c.pem", "UnsubscribeURL": "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe",
		"MessageAttributes": ma})
	return string(b)
}

// A publish carries the stamp among the notification's own attributes, in
// place of the one an earlier redrive left there, as the topic's
// subscriber receives it; a notification with ten attributes already is
// published with those ten only, even when asked to carry the stamp (an
// eleventh would be discarded by a raw-delivery subscriber).
func TestSNSTargetCarriesStamp(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	s := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("stamp-sns")
	qURL, err := s.CreateQueue(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	qARN, _ := s.Attribute(ctx, qURL, "QueueArn")
	topic, err := localaws.Subscribe(ctx, cfg, name, qARN)
	if err != nil {
		t.Fatal(err)
	}
	ten := map[string]string{}
	for i := range 10 {
		ten[fmt.Sprintf("a%d", i)] = "v"
	}
	msgs := []sqsjson.Message{
		{MessageId: "m-again", Body: notification("n1", "again", map[string]string{"tenant": "t1", provenance.Attribute: "incident=old run=old msg=x attempt=1"})},
		{MessageId: "m-raw", Body: "raw", MessageAttributes: map[string]sqsjson.MessageAttributeValue{"tenant": {DataType: "String", StringValue: aws.String("t2")}}},
		{MessageId: "m-full", Body: notification("n3", "full", ten)},
	}
	tg := NewSNSTarget(sns.NewFromConfig(cfg), topic, false)
	st := provenance.New("/incidents/orders-dlq-20261202T0400Z", "run-1", 2)
	results := map[string]provenance.Result{}
	for i := range msgs {
		attrs, body := tg.Carried(&msgs[i])
		v := st.Value(msgs[i].MessageId)
		results[msgs[i].MessageId] = provenance.Fits(attrs, body, v, 0)
		// Set even where it does not fit: the target must not publish an
		// eleventh attribute.
		msgs[i].MessageAttributes = provenance.Set(msgs[i].MessageAttributes, v)
	}
	if want := map[string]provenance.Result{"m-again": provenance.Stamped, "m-raw": provenance.Stamped, "m-full": provenance.Full}; fmt.Sprint(results) != fmt.Sprint(want) {
		t.Fatalf("fits %v, want %v", results, want)
	}
	done, failed, err := tg.Send(ctx, msgs, []int{0, 1, 2})
	if err != nil || len(failed) > 0 || len(done) != 3 {
		t.Fatalf("send: %v %v %v", done, failed, err)
	}
	got, err := s.Drain(ctx, qURL)
	if err != nil {
		t.Fatal(err)
	}
	attrsOf := map[string]map[string]map[string]string{}
	for _, m := range got {
		var n struct {
			Message           string
			MessageAttributes map[string]map[string]string
		}
		if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &n); err != nil {
			t.Fatal(err)
		}
		attrsOf[n.Message] = n.MessageAttributes
	}
	for msg, id := range map[string]string{"again": "m-again", "raw": "m-raw"} {
		a := attrsOf[msg]
		want := "incident=orders-dlq-20261202T0400Z run=run-1 msg=" + id + " attempt=2"
		if a[provenance.Attribute]["Value"] != want || a[provenance.Attribute]["Type"] != "String" || len(a) != 2 || a["tenant"]["Value"] == "" {
			t.Errorf("%s: subscriber got attributes %v, want tenant and %s=%q", msg, a, provenance.Attribute, want)
		}
	}
	if a := attrsOf["full"]; len(a) != 10 || a[provenance.Attribute] != nil {
		t.Errorf("full: subscriber got %d attributes (%v), want the 10 it had", len(a), a)
	}
}
