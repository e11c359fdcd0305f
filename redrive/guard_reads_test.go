package redrive

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// inFlight counts the reads under way at once: the most it saw tells
// whether the guard's reads overlapped.
type inFlight struct {
	now, most atomic.Int64
}

// hold is one read: it counts itself in flight for d.
func (f *inFlight) hold(d time.Duration) {
	n := f.now.Add(1)
	for {
		m := f.most.Load()
		if n <= m || f.most.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(d)
	f.now.Add(-1)
}

// slowSQS answers the guard's SQS reads after a delay each, the slowest
// first in the guard's order, so that they complete in the reverse order:
// a listing of move tasks that fails or shows one RUNNING, and no tags.
type slowSQS struct {
	sqsapi.Client
	f       *inFlight
	running bool
	calls   sync.Map // operation → true
}

func (c *slowSQS) ListMessageMoveTasks(context.Context, *sqs.ListMessageMoveTasksInput, ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error) {
	c.calls.Store("ListMessageMoveTasks", true)
	c.f.hold(150 * time.Millisecond)
	if c.running {
		return &sqs.ListMessageMoveTasksOutput{Results: []sqstypes.ListMessageMoveTasksResultEntry{{Status: aws.String("RUNNING"), TaskHandle: aws.String("h-1"), StartedTimestamp: time.Now().UnixMilli()}}}, nil
	}
	return nil, errors.New("no move tasks here")
}

func (c *slowSQS) ListQueueTags(context.Context, *sqs.ListQueueTagsInput, ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error) {
	c.calls.Store("ListQueueTags", true)
	c.f.hold(100 * time.Millisecond)
	return &sqs.ListQueueTagsOutput{Tags: map[string]string{}}, nil
}

// slowLambda is a destination read by one enabled mapping whose
// function's reserved concurrency cannot be read (a warning).
type slowLambda struct {
	LambdaClient
	f *inFlight
}

func (l *slowLambda) ListEventSourceMappings(context.Context, *lambda.ListEventSourceMappingsInput, ...func(*lambda.Options)) (*lambda.ListEventSourceMappingsOutput, error) {
	l.f.hold(50 * time.Millisecond)
	return &lambda.ListEventSourceMappingsOutput{EventSourceMappings: []ltypes.EventSourceMappingConfiguration{{
		UUID: aws.String("m-1"), State: aws.String("Enabled"), FunctionArn: aws.String("arn:aws:lambda:us-east-1:123456789012:function:orders-consumer")}}}, nil
}

func (l *slowLambda) GetFunctionConcurrency(context.Context, *lambda.GetFunctionConcurrencyInput, ...func(*lambda.Options)) (*lambda.GetFunctionConcurrencyOutput, error) {
	l.f.hold(10 * time.Millisecond)
	return nil, errors.New("AccessDenied")
}

func (l *slowLambda) GetFunction(context.Context, *lambda.GetFunctionInput, ...func(*lambda.Options)) (*lambda.GetFunctionOutput, error) {
	l.f.hold(10 * time.Millisecond)
	return &lambda.GetFunctionOutput{Configuration: &ltypes.FunctionConfiguration{Version: aws.String("$LATEST"), CodeSha256: aws.String("abc")}}, nil
}

// guardFixture is a DLQ and its destination queue, an empty incident and
// an Env whose Info and Warn lines land, in order, in said.
func guardFixture(t *testing.T, c *slowSQS, l *slowLambda) (*Env, *incident.Workspace, *Plan, *[]string) {
	t.Helper()
	ws, err := incident.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	said := []string{}
	say := func(kind string) func(string, ...any) {
		return func(f string, a ...any) {
			mu.Lock()
			defer mu.Unlock()
			said = append(said, kind+": "+fmt.Sprintf(f, a...))
		}
	}
	env := &Env{SQS: c, Now: time.Now, Info: say("info"), Warn: say("warn"),
		Before: func([]incident.Event) Before { return Before{} },
		Lambda: func(context.Context) (LambdaClient, error) { return l, nil }}
	dlq := &sqsapi.Queue{Name: "orders-dlq", URL: "https://sqs.us-east-1.amazonaws.com/123456789012/orders-dlq", ARN: "arn:aws:sqs:us-east-1:123456789012:orders-dlq"}
	dest := &sqsapi.Queue{Name: "orders", URL: "https://sqs.us-east-1.amazonaws.com/123456789012/orders", ARN: "arn:aws:sqs:us-east-1:123456789012:orders"}
	p := &Plan{Source: Source{Queue: dlq}, Dests: []Destination{{Queue: dest}}, Canary: 10}
	return env, ws, p, &said
}

// The guard's reads run together — the move tasks, the lease's tag and
// the destination's mappings and consumers overlap — yet what it says
// comes out in the order the checks always said it, though the reads
// finish in the reverse order, and a read that fails is said as before.
func TestGuardReadsOverlapOutputInOrder(t *testing.T) {
	f := &inFlight{}
	c, l := &slowSQS{f: f}, &slowLambda{f: f}
	env, ws, p, said := guardFixture(t, c, l)
	ctx := context.Background()
	begun := time.Now()
	if err := Guard(ctx, env, ws, p); err != nil {
		t.Fatal(err)
	}
	if err := CheckLease(ctx, env, p); err != nil {
		t.Fatal(err)
	}
	took := time.Since(begun)
	want := []string{
		"warn: move tasks: not checked: ListMessageMoveTasks answered list message move tasks of orders-dlq: no move tasks here; a console redrive of orders-dlq running alongside would not be seen (docs/iam.md: sqs:ListMessageMoveTasks)",
		"info: fix deployed: not checked: no classification in this incident (run mfdlq classify to check the consumer against the first failure)",
		"warn: consumer: the reserved concurrency of orders-consumer cannot be read (AccessDenied): a function stopped by reserved concurrency 0 would read as running",
	}
	if d := cmp.Diff(want, *said); d != "" {
		t.Errorf("what the guard said (-want +got):\n%s", d)
	}
	if m := f.most.Load(); m < 3 {
		t.Errorf("at most %d reads in flight, want the move tasks, the tag and the mappings at once", m)
	}
	// One after another the reads take 150 + 100 + 2×(50 + 10) ms.
	if took >= 370*time.Millisecond {
		t.Errorf("the guard took %s: its reads did not overlap", took)
	}
	if p.reads != nil {
		t.Error("CheckLease leaves the guard's reads for Run to read afresh")
	}
}

// A read's answer still decides where it always did: a RUNNING move task
// refuses the redrive, and the checks after it say nothing (their reads,
// made ahead, are not said).
func TestGuardReadsRefusalAsBefore(t *testing.T) {
	f := &inFlight{}
	c, l := &slowSQS{f: f, running: true}, &slowLambda{f: f}
	env, ws, p, said := guardFixture(t, c, l)
	err := Guard(context.Background(), env, ws, p)
	var rf *Refusal
	if !errors.As(err, &rf) || !strings.HasPrefix(rf.Reason, "a message move task is RUNNING on orders-dlq") {
		t.Fatalf("Guard = %v, want the move task's refusal", err)
	}
	if len(*said) != 0 {
		t.Errorf("said %q, want nothing before the refusal", *said)
	}
}

// toAndSources answers Resolve's two reads with --to: the source queues'
// listing fails after 100 ms, --to's queue is not found after 50 ms.
type toAndSources struct {
	sqsapi.Client
	f *inFlight
}

func (c *toAndSources) ListDeadLetterSourceQueues(context.Context, *sqs.ListDeadLetterSourceQueuesInput, ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error) {
	c.f.hold(100 * time.Millisecond)
	return nil, errors.New("connection reset")
}

func (c *toAndSources) GetQueueUrl(context.Context, *sqs.GetQueueUrlInput, ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error) {
	c.f.hold(50 * time.Millisecond)
	return nil, &sqstypes.QueueDoesNotExist{Message: aws.String("no such queue")}
}

// ListMessageMoveTasks and ListQueueTags are the DLQ's reads Resolve
// starts for the guard.
func (c *toAndSources) ListMessageMoveTasks(context.Context, *sqs.ListMessageMoveTasksInput, ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error) {
	return &sqs.ListMessageMoveTasksOutput{}, nil
}

func (c *toAndSources) ListQueueTags(context.Context, *sqs.ListQueueTagsInput, ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error) {
	return &sqs.ListQueueTagsOutput{}, nil
}

// With --to, the destination is resolved while the source queues are
// read: the listing's failure is still warned first, and a destination
// that does not exist is still the error (exit 5).
func TestResolveToWhileSourcesRead(t *testing.T) {
	f := &inFlight{}
	var warned []string
	env := &Env{SQS: &toAndSources{f: f}, Region: "us-east-1", Now: time.Now, Info: func(string, ...any) {},
		Warn: func(format string, a ...any) { warned = append(warned, fmt.Sprintf(format, a...)) }}
	dlq := &sqsapi.Queue{Name: "orders-dlq", URL: "https://sqs.us-east-1.amazonaws.com/123456789012/orders-dlq", ARN: "arn:aws:sqs:us-east-1:123456789012:orders-dlq", Region: "us-east-1"}
	_, err := Resolve(context.Background(), env, Request{To: "orders"}, dlq)
	if !errors.Is(err, sqsapi.ErrQueueNotFound) {
		t.Fatalf("Resolve = %v, want --to's queue not found", err)
	}
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "shared DLQ not checked: find source queues of orders-dlq: ") {
		t.Errorf("warned %q", warned)
	}
	if f.most.Load() != 2 {
		t.Errorf("at most %d of the two reads in flight, want both at once", f.most.Load())
	}
}
