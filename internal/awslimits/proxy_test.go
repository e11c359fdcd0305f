package awslimits

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// At each limit the call goes through; one character past it, it is
// refused as AWS would, where moto alone accepts both.
func TestLimitsAtTheEdge(t *testing.T) {
	ctx := context.Background()
	p, err := New(localaws.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(p)
	t.Cleanup(hs.Close)
	cfg := localaws.Config(t)
	cfg.BaseEndpoint = aws.String(hs.URL)

	topic, err := sns.NewFromConfig(cfg).CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(localaws.UniqueName("limits"))})
	if err != nil {
		t.Fatal(err)
	}
	pub := func(subject string) error {
		_, err := sns.NewFromConfig(cfg).Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn, Message: aws.String("m"), Subject: aws.String(subject)})
		return err
	}
	if err := pub(strings.Repeat("s", MaxSubject)); err != nil {
		t.Errorf("a 99-character subject: %v", err)
	}
	if err := pub(strings.Repeat("s", MaxSubject+1)); err == nil || !strings.Contains(err.Error(), "InvalidParameter") {
		t.Errorf("a 100-character subject: %v, want InvalidParameter", err)
	}

	q := sqs.NewFromConfig(cfg)
	out, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(localaws.UniqueName("limits"))})
	if err != nil {
		t.Fatal(err)
	}
	tag := func(v string) error {
		_, err := q.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: out.QueueUrl, Tags: map[string]string{"k": v}})
		return err
	}
	if err := tag(strings.Repeat("v", MaxTagValue)); err != nil {
		t.Errorf("a 256-character tag value: %v", err)
	}
	if err := tag(strings.Repeat("v", MaxTagValue+1)); err == nil || !strings.Contains(err.Error(), "InvalidParameterValue") {
		t.Errorf("a 257-character tag value: %v, want InvalidParameterValue", err)
	}
	if p.Refused("Publish") != 1 || p.Refused("TagQueue") != 1 {
		t.Errorf("refused %d Publish, %d TagQueue; want 1 each", p.Refused("Publish"), p.Refused("TagQueue"))
	}
}
