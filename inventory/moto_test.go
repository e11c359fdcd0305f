package inventory

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/internal/faultproxy"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestMain(m *testing.M) { localaws.Wrap(m).Run() }

// TestTakeThroughThrottlingAndFaults lists 30 pairs on the local AWS
// through a proxy that breaks a fifth of the calls (throttling, 5xx,
// dropped connections): the listing's retries still find every DLQ with
// its source, and the depth of the one holding messages.
func TestTakeThroughThrottlingAndFaults(t *testing.T) {
	cfg := localaws.Config(t)
	s := localaws.NewSeeder(cfg)
	ctx := context.Background()
	prefix := localaws.UniqueName("inv")
	for i := range 30 {
		name := fmt.Sprintf("%s-%02d", prefix, i)
		if _, _, err := s.CreatePair(ctx, name, name+"-dlq", 3); err != nil {
			t.Fatal(err)
		}
	}
	u, err := s.SQS.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(prefix + "-07-dlq")})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctx, *u.QueueUrl, []string{"a", "b"}, nil); err != nil {
		t.Fatal(err)
	}
	p := faultproxy.New(localaws.Endpoint(t), 0.2, 7)
	srv := httptest.NewServer(p)
	defer srv.Close()
	client := sqsapi.New(cfg, func(o *sqs.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
		// ls's retryer (its attempts, no retry quota), retrying at once:
		// the retries are what is tested, not their backoff.
		o.Retryer, o.RetryMaxAttempts = localaws.NoBackoff(Retryer().(aws.RetryerV2)), 0
	})
	inv, err := Take(ctx, Clients{SQS: client}, Options{Prefix: prefix, Concurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	if calls, faults := p.Counts(); len(faults) == 0 {
		t.Fatalf("no fault injected in %d calls: the test proves nothing", calls)
	}
	if len(inv.DLQs) != 30 {
		t.Fatalf("%d DLQs, want 30", len(inv.DLQs))
	}
	first := inv.DLQs[0]
	if first.Queue != prefix+"-07-dlq" || first.Visible != 2 || len(first.Sources) != 1 || first.Sources[0].Queue != prefix+"-07" {
		t.Errorf("first DLQ %+v; want %s-07-dlq with 2 visible and its source", first, prefix)
	}
	for _, d := range inv.DLQs {
		if !strings.HasSuffix(d.Queue, "-dlq") || len(d.Sources) != 1 || d.Sources[0].Queue+"-dlq" != d.Queue {
			t.Errorf("%s: sources %+v", d.Queue, d.Sources)
		}
	}
}
