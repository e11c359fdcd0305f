package sqsapi

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/internal/faultproxy"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// peekQueue is a moto queue of n messages reached through a faultproxy.
func peekQueue(t *testing.T, n int) (*faultproxy.Proxy, *sqs.Client, *Queue, *localaws.Seeder) {
	t.Helper()
	ctx := context.Background()
	p := faultproxy.New(localaws.Endpoint(t), 0, 1)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	seed := localaws.NewSeeder(localaws.Config(t))
	url, err := seed.CreateQueue(ctx, localaws.UniqueName("peek"), nil)
	if err != nil {
		t.Fatal(err)
	}
	bodies := make([]string, n)
	for i := range bodies {
		bodies[i] = fmt.Sprint("m-", i)
	}
	if err := seed.Send(ctx, url, bodies, nil); err != nil {
		t.Fatal(err)
	}
	c := New(localaws.Config(t), func(o *sqs.Options) {
		o.BaseEndpoint, o.Retryer = aws.String(srv.URL), localaws.NoBackoff(retry.NewStandard())
	})
	q, err := Resolve(ctx, c, url, localaws.Region)
	if err != nil {
		t.Fatal(err)
	}
	return p, c, q, seed
}

// cancelAfter cancels its context once the first receive has answered:
// Ctrl-C in the middle of a peek.
type cancelAfter struct {
	*sqs.Client
	cancel context.CancelFunc
}

func (c cancelAfter) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	out, err := c.Client.ReceiveMessage(ctx, in, optFns...)
	c.cancel()
	return out, err
}

// A peek that fails — a receive whose every attempt lost its answer — or
// is interrupted leaves every message it received visible at once (inspect
// and classify peek with VisibilityTimeout 5, held 30 s here so that the
// test cannot mistake the timeout for the release) and says so, and when
// what a lost answer hid reappears. On the old code all stayed hidden.
func TestPeekFailedOrInterruptedReleasesWhatItReceived(t *testing.T) {
	ctx := context.Background()
	t.Run("failed receive", func(t *testing.T) {
		p, c, q, seed := peekQueue(t, 25)
		p.Break(&faultproxy.Rule{Match: faultproxy.SQSAction("ReceiveMessage"), N: 2, Times: MaxAttempts, Kind: faultproxy.DropAfter})
		// Short polls: the last attempt finds the queue emptied by the
		// lost ones, where moto's long poll would wait its second.
		_, err := Peek(ctx, localaws.ShortPolls{Client: c}, q, PeekOptions{Max: 25, Visibility: 30, Wait: 1})
		if err == nil || !strings.Contains(err.Error(), "the 10 messages peeked were made visible again") || !strings.Contains(err.Error(), "reappear within 30s") {
			t.Fatalf("peek error %v: want it to name the 10 released and when the lost ones reappear", err)
		}
		if visible, inFlight, err := seed.Depth(ctx, q.URL); err != nil || visible != 10 || inFlight != 15 {
			t.Fatalf("visible %d, in flight %d (%v); want the 10 peeked visible, the 15 a lost answer hid in flight", visible, inFlight, err)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		_, c, q, seed := peekQueue(t, 25)
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		_, err := Peek(cctx, cancelAfter{c, cancel}, q, PeekOptions{Max: 25, Visibility: 30, Wait: 1})
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "the 10 messages peeked were made visible again") {
			t.Fatalf("peek error %v: want canceled, the 10 released", err)
		}
		if visible, inFlight, err := seed.Depth(ctx, q.URL); err != nil || visible != 25 || inFlight != 0 {
			t.Fatalf("visible %d, in flight %d (%v); want all 25 visible", visible, inFlight, err)
		}
	})
}
