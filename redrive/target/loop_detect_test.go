package target

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// loopQueues creates a DLQ and another queue, returning their ARNs.
func loopQueues(t *testing.T) (dlqARN, otherARN string) {
	t.Helper()
	ctx := context.Background()
	s := localaws.NewSeeder(localaws.Config(t))
	for i, base := range []string{"loop-dlq", "loop-other"} {
		url, err := s.CreateQueue(ctx, localaws.UniqueName(base), nil)
		if err != nil {
			t.Fatal(err)
		}
		arn, err := s.Attribute(ctx, url, "QueueArn")
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			dlqARN = arn
		} else {
			otherARN = arn
		}
	}
	return dlqARN, otherARN
}

// TestTopicLoopMoto: a topic the DLQ subscribes to is refused; one only
// another queue subscribes to passes.
func TestTopicLoopMoto(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	c := sns.NewFromConfig(cfg)
	dlq, other := loopQueues(t)
	looping, err := localaws.Subscribe(ctx, cfg, localaws.UniqueName("loop-topic"), dlq)
	if err != nil {
		t.Fatal(err)
	}
	// More subscribers than the DLQ, so the DLQ is not the only one seen.
	if _, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(looping), Protocol: aws.String("sqs"), Endpoint: aws.String(other)}); err != nil {
		t.Fatal(err)
	}
	var le *LoopError
	if _, err := TopicLoop(ctx, c, looping, "orders-dlq", dlq); !errors.As(err, &le) || !strings.Contains(err.Error(), "orders-dlq is subscribed to "+looping) || le.Fix == "" {
		t.Fatalf("topic the DLQ subscribes to: %v, want a LoopError naming both and the fix", err)
	}
	clean, err := localaws.Subscribe(ctx, cfg, localaws.UniqueName("clean-topic"), other)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := TopicLoop(ctx, c, clean, "orders-dlq", dlq); err != nil || n != 1 {
		t.Fatalf("topic without the DLQ: %d subscribers, %v; want 1", n, err)
	}
}

// TestBusLoopMoto: a bus one of whose rules targets the DLQ is refused; a
// bus whose rule's target has the DLQ as its own DLQ passes and names it.
func TestBusLoopMoto(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	c := eventbridge.NewFromConfig(cfg)
	dlq, other := loopQueues(t)
	looping := localaws.UniqueName("loop-bus")
	if _, err := localaws.RuleToQueue(ctx, cfg, looping, "to-other", "orders.app", other); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutRule(ctx, &eventbridge.PutRuleInput{Name: aws.String("to-dlq"), EventBusName: aws.String(looping), EventPattern: aws.String(`{"source":["x"]}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutTargets(ctx, &eventbridge.PutTargetsInput{Rule: aws.String("to-dlq"), EventBusName: aws.String(looping),
		Targets: []ebtypes.Target{{Id: aws.String("d"), Arn: aws.String(dlq)}}}); err != nil {
		t.Fatal(err)
	}
	var le *LoopError
	if _, err := BusLoop(ctx, c, looping, "orders-dlq", dlq); !errors.As(err, &le) || !strings.Contains(err.Error(), "rule to-dlq on "+looping+" targets orders-dlq itself") {
		t.Fatalf("bus whose rule targets the DLQ: %v, want a LoopError", err)
	}
	returning := localaws.UniqueName("return-bus")
	if _, err := localaws.RuleToQueue(ctx, cfg, returning, "r", "orders.app", other); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutTargets(ctx, &eventbridge.PutTargetsInput{Rule: aws.String("r"), EventBusName: aws.String(returning),
		Targets: []ebtypes.Target{{Id: aws.String("q"), Arn: aws.String(other), DeadLetterConfig: &ebtypes.DeadLetterConfig{Arn: aws.String(dlq)}}}}); err != nil {
		t.Fatal(err)
	}
	ret, err := BusLoop(ctx, c, returning, "orders-dlq", dlq)
	if err != nil || len(ret) != 1 || ret[0].Rule != "r" || ret[0].Target != other {
		t.Fatalf("bus whose target's DLQ is the DLQ: %v, %+v; want it named, not refused", err, ret)
	}
	if ret, err := BusLoop(ctx, c, looping+"-none", "orders-dlq", dlq); err == nil {
		t.Fatalf("a bus that does not exist: %+v, want the error", ret)
	}
}

func TestFileLoop(t *testing.T) {
	const dlq = "arn:aws:sqs:us-east-1:123456789012:orders-dlq"
	recs := func(from ...string) func() (*sqsjson.Message, error) {
		i := 0
		return func() (*sqsjson.Message, error) {
			if i == len(from) {
				return nil, io.EOF
			}
			m := &sqsjson.Message{MessageId: "m", Body: "{}", Attributes: map[string]string{}}
			if from[i] != "" {
				m.Attributes[sqsjson.AttrExportedFrom] = from[i]
			}
			i++
			return m, nil
		}
	}
	var le *LoopError
	if err := FileLoop(recs("", dlq, dlq), "f.jsonl", "orders-dlq", dlq); !errors.As(err, &le) || !strings.HasPrefix(err.Error(), "2 messages of f.jsonl were exported from orders-dlq") {
		t.Fatalf("replay into the DLQ exported from: %v", err)
	}
	if err := FileLoop(recs("", dlq), "f.jsonl", "orders", "arn:aws:sqs:us-east-1:123456789012:orders"); err != nil {
		t.Fatalf("replay into the source: %v", err)
	}
	broken := func() (*sqsjson.Message, error) { return nil, errors.New("bad line 3") }
	if err := FileLoop(broken, "f.jsonl", "orders", dlq); err == nil || err.Error() != "bad line 3" {
		t.Fatalf("read error: %v", err)
	}
}
