package sqsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// pair creates a source queue and its DLQ on the local AWS.
func pair(t *testing.T) (src, dlq string, seed *localaws.Seeder) {
	t.Helper()
	seed = localaws.NewSeeder(localaws.Config(t))
	src, dlq = localaws.UniqueName("orders"), localaws.UniqueName("orders-dlq")
	if _, _, err := seed.CreatePair(context.Background(), src, dlq, 4); err != nil {
		t.Fatal(err)
	}
	return src, dlq, seed
}

func client(t *testing.T) *sqs.Client { return New(localaws.Config(t)) }

func TestResolveByNameURLAndARN(t *testing.T) {
	ctx := context.Background()
	src, dlq, _ := pair(t)
	c := client(t)
	byName, err := Resolve(ctx, c, dlq, localaws.Region)
	if err != nil {
		t.Fatal(err)
	}
	if byName.Account != localaws.Account || byName.Region != localaws.Region || byName.Name != dlq {
		t.Errorf("resolved %+v; want account %s region %s name %s", byName, localaws.Account, localaws.Region, dlq)
	}
	for _, ref := range []string{byName.URL, byName.ARN} {
		q, err := Resolve(ctx, c, ref, localaws.Region)
		if err != nil {
			t.Fatalf("Resolve(%s): %v", ref, err)
		}
		if q.URL != byName.URL || q.ARN != byName.ARN {
			t.Errorf("Resolve(%s) = %s %s; want %s %s", ref, q.URL, q.ARN, byName.URL, byName.ARN)
		}
	}
	source, err := Resolve(ctx, c, src, localaws.Region)
	if err != nil {
		t.Fatal(err)
	}
	if source.RedrivePolicy == nil || source.RedrivePolicy.MaxReceiveCount != 4 || source.RedrivePolicy.DeadLetterTargetArn != byName.ARN {
		t.Errorf("source redrive policy = %+v; want maxReceiveCount 4 to %s", source.RedrivePolicy, byName.ARN)
	}
}

func TestResolveErrors(t *testing.T) {
	ctx := context.Background()
	c := client(t)
	_, err := Resolve(ctx, c, localaws.UniqueName("missing"), localaws.Region)
	if !errors.Is(err, ErrQueueNotFound) {
		t.Errorf("missing queue: err = %v; want ErrQueueNotFound", err)
	}
	for _, ref := range []string{"", "has space", "arn:aws:sns:us-east-1:123456789012:topic", "https://example.com/", "arn:aws:sqs:eu-west-1:123456789012:q"} {
		_, err := Resolve(ctx, c, ref, localaws.Region)
		var bad *InvalidQueueRefError
		if !errors.As(err, &bad) {
			t.Errorf("Resolve(%q): err = %v; want InvalidQueueRefError", ref, err)
		}
	}
}

func TestRedrivePolicyAcceptsStringOrNumber(t *testing.T) {
	for _, in := range []string{`{"deadLetterTargetArn":"a","maxReceiveCount":5}`, `{"deadLetterTargetArn":"a","maxReceiveCount":"5"}`} {
		var p RedrivePolicy
		if err := json.Unmarshal([]byte(in), &p); err != nil || p.MaxReceiveCount != 5 || p.DeadLetterTargetArn != "a" {
			t.Errorf("%s → %+v, %v", in, p, err)
		}
	}
}

// deniedSources makes ListDeadLetterSourceQueues fail as a role without
// sqs:ListDeadLetterSourceQueues would.
type deniedSources struct{ Client }

func (deniedSources) ListDeadLetterSourceQueues(context.Context, *sqs.ListDeadLetterSourceQueuesInput, ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error) {
	return nil, &smithy.GenericAPIError{Code: "AccessDenied", Message: "not allowed"}
}

func TestSourceQueues(t *testing.T) {
	ctx := context.Background()
	src, dlq, _ := pair(t)
	for name, c := range map[string]Client{"list": client(t), "scan fallback": deniedSources{client(t)}} {
		t.Run(name, func(t *testing.T) {
			q, err := Resolve(ctx, c, dlq, localaws.Region)
			if err != nil {
				t.Fatal(err)
			}
			got, err := SourceQueues(ctx, c, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Name != src {
				t.Fatalf("sources = %v; want [%s]", names(got), src)
			}
		})
	}
}

func names(qs []*Queue) []string {
	var out []string
	for _, q := range qs {
		out = append(out, q.Name)
	}
	return out
}

func TestPeekCollectsDistinctAndDeletesNothing(t *testing.T) {
	ctx := context.Background()
	_, dlq, seed := pair(t)
	c := client(t)
	q, err := Resolve(ctx, c, dlq, localaws.Region)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for i := range 15 {
		bodies = append(bodies, fmt.Sprintf(`{"order_id":%d,"version":2}`, i))
	}
	if err := seed.Send(ctx, q.URL, bodies, map[string]string{"ErrorCode": "E1"}); err != nil {
		t.Fatal(err)
	}
	res, err := Peek(ctx, c, q, PeekOptions{Max: 12, Visibility: 30, Wait: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 12 {
		t.Fatalf("peeked %d; want 12", len(res.Messages))
	}
	seen := map[string]bool{}
	for _, m := range res.Messages {
		if seen[m.MessageId] {
			t.Errorf("MessageId %s twice", m.MessageId)
		}
		seen[m.MessageId] = true
		if _, ok := m.SentTime(); !ok {
			t.Errorf("%s: no SentTimestamp", m.MessageId)
		}
		if v, ok := m.StringAttribute("ErrorCode"); !ok || v != "E1" {
			t.Errorf("%s: ErrorCode = %q; want E1", m.MessageId, v)
		}
	}
	visible, inFlight, err := seed.Depth(ctx, q.URL)
	if err != nil {
		t.Fatal(err)
	}
	if visible+inFlight != 15 {
		t.Errorf("after peek the DLQ holds %d+%d; want all 15", visible, inFlight)
	}
	// The rest of the queue shows nothing new: the peek stops by itself
	// (on moto's short polls, which see every message: no quiet round
	// waits its second).
	rest, err := Peek(ctx, localaws.ShortPolls{Client: c}, q, PeekOptions{Max: 100, Visibility: 30, Wait: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rest.Messages) != 3 {
		t.Errorf("second peek saw %d; want the 3 not yet hidden", len(rest.Messages))
	}
}

func TestSameQueue(t *testing.T) {
	dlq := &Queue{Name: "orders-dlq", Account: "123456789012", ARN: "arn:aws:sqs:us-east-1:123456789012:orders-dlq", URL: "https://sqs.us-east-1.amazonaws.com/123456789012/orders-dlq"}
	for _, tt := range []struct {
		q    *Queue
		want bool
	}{
		{&Queue{Name: "orders-dlq", ARN: dlq.ARN, URL: "http://localhost:4566/123456789012/orders-dlq"}, true},
		{&Queue{Name: "orders-dlq", Account: "123456789012"}, true},
		{&Queue{Name: "orders-dlq", Account: "999999999999"}, false},
		{&Queue{Name: "orders", ARN: "arn:aws:sqs:us-east-1:123456789012:orders", URL: dlq.URL}, false},
	} {
		if got := SameQueue(tt.q, dlq); got != tt.want {
			t.Errorf("SameQueue(%+v) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

// TestLooksLikeSource: the source queue of a pair, given where its DLQ
// was expected, looks like one and names the DLQ; the DLQ does not, nor
// does a source whose DLQ's sources cannot be listed.
func TestLooksLikeSource(t *testing.T) {
	ctx := context.Background()
	src, dlq, _ := pair(t)
	c := client(t)
	for _, tc := range []struct {
		ref    string
		client SourcesLister
		want   bool
	}{{src, c, true}, {dlq, c, false}, {src, deniedSources{c}, false}} {
		q, err := Resolve(ctx, c, tc.ref, localaws.Region)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := LooksLikeSource(ctx, tc.client, q)
		if ok != tc.want || ok && got != dlq {
			t.Errorf("LooksLikeSource(%s) = %q, %v; want %v naming %s", tc.ref, got, ok, tc.want, dlq)
		}
	}
}
