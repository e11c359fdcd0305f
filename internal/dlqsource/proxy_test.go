package dlqsource

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// front starts the proxy before the test's moto and returns a client
// through it and a seeder through it (sends must pass the proxy to be
// remembered).
func front(t *testing.T) (*sqs.Client, *localaws.Seeder) {
	t.Helper()
	cfg := localaws.Config(t)
	p, err := New(localaws.Endpoint(t), sqs.NewFromConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(p)
	t.Cleanup(hs.Close)
	cfg.BaseEndpoint = aws.String(hs.URL)
	return sqs.NewFromConfig(cfg), localaws.NewSeeder(cfg)
}

// fail receives every message of a source without deleting it until the
// redrive policy has moved it to the DLQ (moto moves on the receive that
// finds the count reached). The sources' visibility timeout is 0 (the
// SDK leaves a zero VisibilityTimeout out of the request).
func fail(t *testing.T, c *sqs.Client, url string, maxReceive int) {
	t.Helper()
	for i := 0; i <= maxReceive+1; i++ {
		for {
			out, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url),
				MaxNumberOfMessages: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Messages) < 10 {
				break
			}
		}
	}
}

func receiveAll(t *testing.T, c *sqs.Client, url string, names []types.MessageSystemAttributeName) []types.Message {
	t.Helper()
	var got []types.Message
	for range 20 {
		out, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url),
			MaxNumberOfMessages: 10, VisibilityTimeout: 30, MessageSystemAttributeNames: names})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			break
		}
		got = append(got, out.Messages...)
	}
	return got
}

func TestSourcesOfASharedDLQ(t *testing.T) {
	ctx := context.Background()
	c, seed := front(t)
	base := localaws.UniqueName("shared")
	dlq, err := seed.CreateQueue(ctx, base+"-dlq", nil)
	if err != nil {
		t.Fatal(err)
	}
	dlqARN, _ := seed.Attribute(ctx, dlq, "QueueArn")
	policy := fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":2}`, dlqARN)
	want := map[string]string{} // body → source ARN ("" for none)
	var deleted string
	for i, name := range []string{"orders", "payments", "refunds"} {
		url, err := seed.CreateQueue(ctx, base+"-"+name, map[string]string{"RedrivePolicy": policy, "VisibilityTimeout": "0"})
		if err != nil {
			t.Fatal(err)
		}
		arn, _ := seed.Attribute(ctx, url, "QueueArn")
		bodies := []string{}
		for j := range 3 + i {
			b := fmt.Sprintf("%s-%d", name, j)
			bodies = append(bodies, b)
			want[b] = arn
		}
		if err := seed.Send(ctx, url, bodies, nil); err != nil {
			t.Fatal(err)
		}
		fail(t, c, url, 2)
		if name == "refunds" {
			deleted = arn
			if _, err := c.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(url)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Sent to the DLQ directly: no source, as in SQS.
	if err := seed.Send(ctx, dlq, []string{"direct"}, nil); err != nil {
		t.Fatal(err)
	}
	want["direct"] = ""

	// Not asked for: never there.
	for _, m := range receiveAll(t, c, dlq, nil) {
		if _, ok := m.Attributes[Attribute]; ok {
			t.Fatalf("%s: source given without being asked for", aws.ToString(m.Body))
		}
		c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(dlq), ReceiptHandle: m.ReceiptHandle})
	}
	for _, names := range [][]types.MessageSystemAttributeName{{"All"}, {Attribute}} {
		got := receiveAll(t, c, dlq, names)
		if len(got) != len(want) {
			t.Fatalf("%v: %d messages in the DLQ, want %d", names, len(got), len(want))
		}
		for _, m := range got {
			body := aws.ToString(m.Body)
			if src := m.Attributes[Attribute]; src != want[body] {
				t.Errorf("%v: %s: source %q, want %q", names, body, src, want[body])
			}
			c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(dlq), ReceiptHandle: m.ReceiptHandle})
		}
	}
	if deleted == "" {
		t.Fatal("no deleted source in the case")
	}
}

func TestMessagesInTheirOwnQueueHaveNoSource(t *testing.T) {
	ctx := context.Background()
	c, seed := front(t)
	url, err := seed.CreateQueue(ctx, localaws.UniqueName("own"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := seed.Send(ctx, url, []string{"a", "b"}, nil); err != nil {
		t.Fatal(err)
	}
	got := receiveAll(t, c, url, []types.MessageSystemAttributeName{"All"})
	if len(got) != 2 {
		t.Fatalf("got %d messages, want 2", len(got))
	}
	for _, m := range got {
		if src, ok := m.Attributes[Attribute]; ok {
			t.Errorf("%s: source %q on a message in the queue it was sent to", aws.ToString(m.Body), src)
		}
		if m.Attributes["SentTimestamp"] == "" {
			t.Errorf("%s: the other system attributes were lost", aws.ToString(m.Body))
		}
	}
}
