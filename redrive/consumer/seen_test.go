package consumer

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// TestNoteSeen against moto, through the SDK: the function mapped to the
// DLQ's source queue is recorded once, in a consumer event naming the step
// that saw it first; a second look records nothing; without a Lambda
// client nothing is recorded.
func TestNoteSeen(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	name := localaws.UniqueName("seen")
	srcURL, dlqURL, err := localaws.NewSeeder(cfg).CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	c := sqsapi.New(cfg)
	src, _ := sqsapi.Resolve(ctx, c, srcURL, localaws.Region)
	dlq, _ := sqsapi.Resolve(ctx, c, dlqURL, localaws.Region)
	fn, err := localaws.CreateFunction(ctx, cfg, name+"-fn", localaws.HandlerZip("None"))
	if err != nil {
		t.Fatal(err)
	}
	l := lambda.NewFromConfig(cfg)
	if _, err := l.CreateEventSourceMapping(ctx, &lambda.CreateEventSourceMappingInput{EventSourceArn: aws.String(src.ARN), FunctionName: aws.String(fn)}); err != nil {
		t.Fatal(err)
	}
	ws, err := incident.Open(filepath.Join(t.TempDir(), "inc"))
	if err != nil {
		t.Fatal(err)
	}
	client := func(context.Context) (*lambda.Client, error) { return l, nil }
	now := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)

	NoteSeen(ctx, ws, c, nil, dlq, "inspect", now)
	if evs, _ := ws.Events(); len(evs) != 0 {
		t.Fatalf("no Lambda client: %d events, want none", len(evs))
	}
	NoteSeen(ctx, ws, c, client, dlq, "inspect", now)
	NoteSeen(ctx, ws, c, client, dlq, "classify", now)
	evs, err := ws.Events()
	if err != nil || len(evs) != 1 {
		t.Fatalf("events %+v (%v), want one consumer event", evs, err)
	}
	var in Inputs
	if err := evs[0].DecodeInputs(&in); err != nil || evs[0].Step != Step || in.SeenBy != "inspect" || !evs[0].Time.Equal(now) || evs[0].Queue != dlq.Name {
		t.Fatalf("event %+v (inputs %+v, %v), want a consumer event seen by inspect", evs[0], in, err)
	}
	if fs := FunctionsOf(evs[0]); len(fs) != 1 || fs[0].ARN != fn || fs[0].CodeSha256 == "" {
		t.Fatalf("functions %+v, want %s with its CodeSha256", fs, fn)
	}
}
