package notify

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/mfdlq/mfdlq/internal/awslimits"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// A 70-character queue name makes a subject past SNS's "less than 100
// characters"; through the limits proxy (which refuses as SNS does, where
// moto accepts) the notification is still published, its subject cut to
// 99.
func TestSNSSubjectOfALongQueueName(t *testing.T) {
	ctx := context.Background()
	p, err := awslimits.New(localaws.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(p)
	t.Cleanup(hs.Close)
	cfg := localaws.Config(t)
	cfg.BaseEndpoint = aws.String(hs.URL)
	snsc := sns.NewFromConfig(cfg)
	topic, err := snsc.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(localaws.UniqueName("notify-subject"))})
	if err != nil {
		t.Fatal(err)
	}
	tg, err := Parse(aws.ToString(topic.TopicArn))
	if err != nil {
		t.Fatal(err)
	}
	queue := "orders-" + strings.Repeat("x", 59) + "-dlq"
	m := Message{Step: "verify", Queue: queue, Account: localaws.Account, Region: localaws.Region, Verdict: "not proven within --wait"}
	if n := len(m.Subject()); n != MaxSubject {
		t.Errorf("subject of %d characters, want %d: %q", n, MaxSubject, m.Subject())
	}
	if len(queue) != 70 || len("mfdlq verify "+queue+": "+m.Verdict) < 100 {
		t.Fatalf("the test must reach the limit")
	}
	s := Sender{SNS: func(context.Context, string) (SNSAPI, error) { return snsc, nil }}
	if err := s.Send(ctx, tg, m); err != nil {
		t.Fatalf("send: %v", err)
	}
	if p.Refused("Publish") != 0 {
		t.Errorf("%d Publish refused", p.Refused("Publish"))
	}
}
