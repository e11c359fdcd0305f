package inflight

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// front starts the proxy with limit in front of the test's moto and
// returns it, a client through it, and a queue holding n messages.
func front(t *testing.T, limit, n int) (*Proxy, *sqs.Client, string, string) {
	t.Helper()
	cfg := localaws.Config(t)
	p, err := New(localaws.Endpoint(t), sqs.NewFromConfig(cfg), limit)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(p)
	t.Cleanup(hs.Close)
	s := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("inflight")
	url, err := s.CreateQueue(context.Background(), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	bodies := make([]string, n)
	for i := range bodies {
		bodies[i] = `{"n":` + strconv.Itoa(i) + `}`
	}
	if err := s.Send(context.Background(), url, bodies, nil); err != nil {
		t.Fatal(err)
	}
	cfg.BaseEndpoint = aws.String(hs.URL)
	cfg.RetryMaxAttempts = 1
	return p, sqs.NewFromConfig(cfg), url, name
}

func receive(t *testing.T, c *sqs.Client, url string, wait, vis int32) ([]types.Message, error) {
	t.Helper()
	out, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url),
		MaxNumberOfMessages: 10, WaitTimeSeconds: wait, VisibilityTimeout: vis})
	if err != nil {
		return nil, err
	}
	return out.Messages, nil
}

// receiveUntilEmpty long-polls until an answer comes back empty and
// returns what it got.
func receiveUntilEmpty(t *testing.T, c *sqs.Client, url string, vis int32) []types.Message {
	t.Helper()
	var got []types.Message
	for range 50 {
		msgs, err := receive(t, c, url, 1, vis)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			return got
		}
		got = append(got, msgs...)
	}
	t.Fatal("never came back empty")
	return nil
}

// At the limit a long poll comes back empty (no error) and a short poll
// gets OverLimit; a delete or a release makes exactly that much room.
func TestLimitLongShortDeleteRelease(t *testing.T) {
	t.Parallel()
	p, c, url, name := front(t, 25, 40)
	p.MaxWait = 200 * time.Millisecond
	got := receiveUntilEmpty(t, c, url, 60)
	if len(got) != 25 || p.InFlight(name) != 25 {
		t.Fatalf("received %d, in flight %d; want 25 and 25 (the limit)", len(got), p.InFlight(name))
	}
	_, err := receive(t, c, url, 0, 60)
	var ol *types.OverLimit
	if !errors.As(err, &ol) {
		t.Fatalf("short poll at the limit: %v, want OverLimit", err)
	}
	if e, o := p.Refusals(); e < 1 || o != 1 {
		t.Fatalf("refusals: %d empty, %d OverLimit; want ≥1 and 1", e, o)
	}

	var del []types.DeleteMessageBatchRequestEntry
	var rel []types.ChangeMessageVisibilityBatchRequestEntry
	for i, m := range got[:10] {
		del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), ReceiptHandle: m.ReceiptHandle})
	}
	for i, m := range got[10:14] {
		rel = append(rel, types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), ReceiptHandle: m.ReceiptHandle})
	}
	if _, err := c.DeleteMessageBatch(context.Background(), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: del}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ChangeMessageVisibilityBatch(context.Background(), &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(url), Entries: rel}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: got[20].ReceiptHandle}); err != nil {
		t.Fatal(err)
	}
	if n := p.InFlight(name); n != 10 {
		t.Fatalf("in flight after 11 deletes and 4 releases: %d, want 10", n)
	}
	more := receiveUntilEmpty(t, c, url, 60)
	if len(more) != 15 {
		t.Fatalf("received %d more, want 15 (the room made)", len(more))
	}
}

// A message whose visibility timeout ends is out of flight: room again
// without a delete.
func TestLimitExpiry(t *testing.T) {
	t.Parallel()
	p, c, url, name := front(t, 10, 20)
	p.MaxWait = 100 * time.Millisecond
	if got := receiveUntilEmpty(t, c, url, 1); len(got) != 10 {
		t.Fatalf("received %d, want 10", len(got))
	}
	time.Sleep(1500 * time.Millisecond)
	if n := p.InFlight(name); n != 0 {
		t.Fatalf("in flight after the timeout: %d, want 0", n)
	}
	if got := receiveUntilEmpty(t, c, url, 60); len(got) != 10 {
		t.Fatalf("received %d after the timeout, want 10", len(got))
	}
}
