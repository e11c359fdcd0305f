package redrive

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// The canary's consumer check against moto's event source mappings,
// through the SDK: all paused refuses a canary (not --force), passes
// --canary 0 with a warning; one paused beside an enabled one is a
// warning; no mapping is a warning that the canary only shows nothing
// came back.
func TestDestConsumerLive(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	l := lambda.NewFromConfig(cfg)
	name := localaws.UniqueName("live")
	srcURL, dlqURL, err := seed.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	c := sqsapi.New(cfg)
	src, _ := sqsapi.Resolve(ctx, c, srcURL, localaws.Region)
	dlq, _ := sqsapi.Resolve(ctx, c, dlqURL, localaws.Region)
	mapping := func(fn string, enabled bool) {
		arn, err := localaws.CreateFunction(ctx, cfg, fn, localaws.HandlerZip("None"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.CreateEventSourceMapping(ctx, &lambda.CreateEventSourceMappingInput{EventSourceArn: aws.String(src.ARN), FunctionName: aws.String(arn), Enabled: aws.Bool(enabled)}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(canary int, force bool) (string, error) {
		var warned strings.Builder
		env := &Env{Now: time.Now, Lambda: func(context.Context) (LambdaClient, error) { return l, nil },
			Warn: func(f string, a ...any) { fmt.Fprintf(&warned, f+"\n", a...) }}
		p := &Plan{Req: Request{Force: force}, Source: Source{Queue: dlq}, Dests: []Destination{{Queue: src}}, Canary: canary}
		err := DestConsumerLive(ctx, env, p, p.Dest())
		return warned.String(), err
	}
	if w, err := check(10, false); err != nil || !strings.Contains(w, "no Lambda event source mapping reads "+name+": mfdlq cannot tell what consumes it (ECS, EC2, another account); the canary passes only if its messages leave the queue") {
		t.Fatalf("no mapping: %v, warned %q", err, w)
	}
	mapping(name+"-a", false)
	_, err = check(10, true)
	var rf *Refusal
	if !errors.As(err, &rf) || !strings.Contains(rf.Reason, "canary into a paused consumer") || !strings.Contains(rf.Reason, "--resume-mapping") || !strings.Contains(rf.Reason, "--canary 0") {
		t.Fatalf("paused, canary 10, --force: %v; want the refusal", err)
	}
	if w, err := check(0, false); err != nil || !strings.Contains(w, "the moved messages wait there until it is resumed") {
		t.Fatalf("paused, --canary 0: %v, warned %q", err, w)
	}
	mapping(name+"-b", true)
	if w, err := check(10, false); err != nil || !strings.Contains(w, "is paused; mapping") {
		t.Fatalf("one paused, one enabled: %v, warned %q", err, w)
	}
}

// A function stopped by reserved concurrency 0 keeps its mapping Enabled:
// it is paused all the same (PutFunctionConcurrency / GetFunctionConcurrency
// on moto, through the SDK), and the refusal names how to resume it; once
// its reserved concurrency is removed, it is live again.
func TestDestConsumerReservedZero(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	l := lambda.NewFromConfig(cfg)
	name := localaws.UniqueName("zero")
	srcURL, dlqURL, err := seed.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	c := sqsapi.New(cfg)
	src, _ := sqsapi.Resolve(ctx, c, srcURL, localaws.Region)
	dlq, _ := sqsapi.Resolve(ctx, c, dlqURL, localaws.Region)
	arn, err := localaws.CreateFunction(ctx, cfg, name+"-fn", localaws.HandlerZip("None"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.CreateEventSourceMapping(ctx, &lambda.CreateEventSourceMappingInput{EventSourceArn: aws.String(src.ARN), FunctionName: aws.String(arn), Enabled: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.PutFunctionConcurrency(ctx, &lambda.PutFunctionConcurrencyInput{FunctionName: aws.String(arn), ReservedConcurrentExecutions: aws.Int32(0)}); err != nil {
		t.Fatal(err)
	}
	env := &Env{Now: time.Now, Lambda: func(context.Context) (LambdaClient, error) { return l, nil }, Warn: func(string, ...any) {}}
	p := &Plan{Source: Source{Queue: dlq}, Dests: []Destination{{Queue: src}}, Canary: 10}
	var rf *Refusal
	err = DestConsumerLive(ctx, env, p, p.Dest())
	if !errors.As(err, &rf) || !strings.Contains(rf.Reason, "reserved concurrency 0") || !strings.Contains(rf.Reason, "aws lambda delete-function-concurrency") {
		t.Fatalf("reserved concurrency 0, canary 10: %v; want the refusal naming delete-function-concurrency", err)
	}
	if _, err := l.DeleteFunctionConcurrency(ctx, &lambda.DeleteFunctionConcurrencyInput{FunctionName: aws.String(arn)}); err != nil {
		t.Fatal(err)
	}
	if err := DestConsumerLive(ctx, env, p, p.Dest()); err != nil {
		t.Fatalf("reserved concurrency removed: %v; want live", err)
	}
}
