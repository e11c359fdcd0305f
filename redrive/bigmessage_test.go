package redrive

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/internal/sqslimits"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// limitsRun moves every message of a DLQ to its source (MaximumMessageSize
// srcMax) through the SQS size stand-in (sqslimits: each message weighed
// with its attributes against its queue's limit, a batch against 1 MiB,
// as SQS does and moto does not), and returns what the source received,
// by body, and the stand-in.
func limitsRun(t *testing.T, srcMax string, req Request, seed func(s *localaws.Seeder, dlqURL string)) (map[string]types.Message, *sqslimits.Proxy, Figures) {
	t.Helper()
	ctx := context.Background()
	cfg := localaws.Config(t)
	px, err := sqslimits.New(localaws.Endpoint(t), sqsapi.New(cfg))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(px)
	t.Cleanup(hs.Close)
	pcfg := cfg.Copy()
	pcfg.BaseEndpoint = aws.String(hs.URL)
	env, _ := testEnv(t)
	env.SQS = sqsapi.New(pcfg)
	env.NewEvent = func(step string, q *sqsapi.Queue) incident.Event { return incident.Event{Step: step, Queue: q.Name} }
	env.OpenOriginals = func(string, string, string) (Originals, error) { return &keptOriginals{}, nil }
	s := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("big")
	dlqURL, err := s.CreateQueue(ctx, name+"-dlq", map[string]string{"MaximumMessageSize": "1048576"})
	if err != nil {
		t.Fatal(err)
	}
	dlqARN, _ := s.Attribute(ctx, dlqURL, "QueueArn")
	srcURL, err := s.CreateQueue(ctx, name, map[string]string{"MaximumMessageSize": srcMax,
		"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"3"}`, dlqARN)})
	if err != nil {
		t.Fatal(err)
	}
	seed(s, dlqURL)
	dlq, err := sqsapi.Resolve(ctx, env.SQS, name+"-dlq", env.Region)
	if err != nil {
		t.Fatal(err)
	}
	req.Canary, req.MaxWorkers, req.Visibility = 0, 1, 30
	p, err := Resolve(ctx, env, req, dlq)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := incident.Open(filepath.Join(t.TempDir(), "big-dlq-20261202T0400Z"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(ctx, env, ws, p)
	if err != nil || sum.Err != nil {
		t.Fatalf("run: %v, %+v", err, sum)
	}
	got, err := s.Drain(ctx, srcURL)
	if err != nil {
		t.Fatal(err)
	}
	byBody := map[string]types.Message{}
	for _, m := range got {
		byBody[aws.ToString(m.Body)] = m
	}
	ev, ok, err := ws.Latest("redrive")
	if err != nil || !ok {
		t.Fatalf("redrive event: %v, %v", ok, err)
	}
	return byBody, px, FiguresOf(ev)
}

// keptOriginals is a --transform's archive in memory: the originals' own
// durability is archive's to test.
type keptOriginals struct{ n int }

func (k *keptOriginals) Append(m []sqsjson.Message) error { k.n += len(m); return nil }
func (k *keptOriginals) Close() error                     { return nil }

// A 900 KiB message (SQS takes up to 1 MiB on a queue that allows it,
// since 2025) is repaired by --transform, stamped and moved to a queue of
// 1 MiB, with its attributes weighed as SQS weighs them; the 200 KiB ones
// beside it go in one batch (SendMessageBatch takes 1 MiB in all), where
// a fixed 256 KiB cap sent each alone.
func TestMove900KiBTransformedAndStampedTo1MiBQueue(t *testing.T) {
	big := fmt.Sprintf(`{"order_id":"o-big","pad":%q}`, strings.Repeat("x", 900<<10))
	var small []string
	for i := range 3 {
		small = append(small, fmt.Sprintf(`{"order_id":"o-%d","pad":%q}`, i, strings.Repeat("y", 200<<10)))
	}
	got, px, fig := limitsRun(t, "1048576", Request{TransformProgram: `.version = 1`, TransformOrigin: "--transform"}, func(s *localaws.Seeder, dlq string) {
		for _, b := range append([]string{big}, small...) {
			if err := s.Send(context.Background(), dlq, []string{b}, map[string]string{"ErrorCode": "E42"}); err != nil {
				t.Fatal(err)
			}
		}
	})
	if fig.Moved != 4 || len(got) != 4 || len(px.Refused()) != 0 {
		t.Fatalf("moved %d, received %d, refused %q", fig.Moved, len(got), px.Refused())
	}
	for body, m := range got {
		var v struct {
			Order   string `json:"order_id"`
			Version int    `json:"version"`
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil || v.Version != 1 {
			t.Fatalf("%.40s… not repaired: %v", body, err)
		}
		if _, ok := m.MessageAttributes[provenance.Attribute]; !ok {
			t.Errorf("%s (%d bytes) not stamped", v.Order, len(body))
		}
	}
	// Sent in the order received: 900 KiB alone or with what still fits
	// under 1 MiB; the three of 200 KiB (600 KiB) together at least once.
	if b := px.Batches(); len(b) > 3 || slices.Max(b) < 2 {
		t.Errorf("batches %v: want the 200 KiB messages batched together under 1 MiB", b)
	}
}

// A queue that kept 256 KiB gets batches of at most 256 KiB: two messages
// of 200 KiB go one by one, and none is refused.
func TestBatchesFollowTheQueuesOwnLimit(t *testing.T) {
	var small []string
	for i := range 2 {
		small = append(small, fmt.Sprintf(`{"order_id":"o-%d","pad":%q}`, i, strings.Repeat("y", 200<<10)))
	}
	got, px, _ := limitsRun(t, "262144", Request{NoStamp: true}, func(s *localaws.Seeder, dlq string) {
		for _, b := range small {
			if err := s.Send(context.Background(), dlq, []string{b}, nil); err != nil {
				t.Fatal(err)
			}
		}
	})
	if len(got) != 2 || len(px.Refused()) != 0 || !slices.Equal(px.Batches(), []int{1, 1}) {
		t.Fatalf("received %d, refused %q, batches %v", len(got), px.Refused(), px.Batches())
	}
}

// A fair queue (a standard queue whose messages carry a MessageGroupId,
// 2025) keeps its tenants through a redrive: the mover asks for each
// message's group and sends it back, so the consumer's noisy-neighbour
// protection still sees two tenants, not one per message. moto stores and
// returns a standard queue's MessageGroupId, as SQS does.
func TestRedriveKeepsFairQueueTenants(t *testing.T) {
	ctx := context.Background()
	got, _, fig := limitsRun(t, "262144", Request{NoStamp: true}, func(s *localaws.Seeder, dlq string) {
		for i, tenant := range []string{"acme", "acme", "globex"} {
			_, err := s.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(dlq),
				MessageBody: aws.String(fmt.Sprintf(`{"order_id":"o-%d"}`, i)), MessageGroupId: aws.String(tenant)})
			if err != nil {
				t.Fatal(err)
			}
		}
	})
	want := map[string]string{`{"order_id":"o-0"}`: "acme", `{"order_id":"o-1"}`: "acme", `{"order_id":"o-2"}`: "globex"}
	if fig.Moved != 3 || len(got) != 3 {
		t.Fatalf("moved %d, received %d", fig.Moved, len(got))
	}
	for body, tenant := range want {
		if g := got[body].Attributes["MessageGroupId"]; g != tenant {
			t.Errorf("%s arrived in group %q, want %q", body, g, tenant)
		}
	}
}
