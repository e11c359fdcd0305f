package redrive

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// startCall is what every call of the start's fake account takes, on the
// test's fake clock (synctest).
const startCall = 20 * time.Millisecond

const startBase = "https://sqs.us-east-1.amazonaws.com/123456789012/"

// startAccount is an account of 40 idle queues, orders-dlq and its
// destination orders (its source when source is set; a queue named
// .fifo is FIFO), where every call takes startCall: ListDeadLetterSourceQueues is denied unless orders is
// the source (then it lists it), and the destination is read by no
// Lambda mapping.
type startAccount struct {
	sqsapi.Client
	source bool
	// mappings counts ListEventSourceMappings.
	mappings atomic.Int32
}

func (a *startAccount) ListDeadLetterSourceQueues(context.Context, *sqs.ListDeadLetterSourceQueuesInput, ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error) {
	time.Sleep(startCall)
	if a.source {
		return &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: []string{startBase + "orders"}}, nil
	}
	return nil, &smithy.GenericAPIError{Code: "AccessDenied", Message: "not allowed"}
}

func (a *startAccount) ListQueues(context.Context, *sqs.ListQueuesInput, ...func(*sqs.Options)) (*sqs.ListQueuesOutput, error) {
	time.Sleep(startCall)
	urls := []string{startBase + "orders-dlq", startBase + "orders"}
	for i := range 40 {
		urls = append(urls, fmt.Sprintf("%sidle-%02d", startBase, i))
	}
	return &sqs.ListQueuesOutput{QueueUrls: urls}, nil
}

func (a *startAccount) GetQueueUrl(_ context.Context, in *sqs.GetQueueUrlInput, _ ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error) {
	time.Sleep(startCall)
	return &sqs.GetQueueUrlOutput{QueueUrl: aws.String(startBase + aws.ToString(in.QueueName))}, nil
}

func (a *startAccount) GetQueueAttributes(_ context.Context, in *sqs.GetQueueAttributesInput, _ ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	time.Sleep(startCall)
	name := sqsapi.NameOf(aws.ToString(in.QueueUrl))
	attrs := map[string]string{"QueueArn": "arn:aws:sqs:us-east-1:123456789012:" + name}
	if name == "orders" && a.source {
		attrs["RedrivePolicy"] = `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:orders-dlq","maxReceiveCount":5}`
	}
	if strings.HasSuffix(name, ".fifo") {
		attrs["FifoQueue"] = "true"
	}
	return &sqs.GetQueueAttributesOutput{Attributes: attrs}, nil
}

// ReceiveMessage is the sample of a DLQ with a source: nothing in it
// names another queue.
func (a *startAccount) ReceiveMessage(context.Context, *sqs.ReceiveMessageInput, ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	time.Sleep(startCall)
	return &sqs.ReceiveMessageOutput{}, nil
}

func (a *startAccount) ListMessageMoveTasks(context.Context, *sqs.ListMessageMoveTasksInput, ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error) {
	time.Sleep(startCall)
	return &sqs.ListMessageMoveTasksOutput{}, nil
}

func (a *startAccount) ListQueueTags(context.Context, *sqs.ListQueueTagsInput, ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error) {
	time.Sleep(startCall)
	return &sqs.ListQueueTagsOutput{}, nil
}

// startLambda is the account's Lambda: no mapping reads the destination.
type startLambda struct {
	LambdaClient
	a *startAccount
}

func (l startLambda) ListEventSourceMappings(context.Context, *lambda.ListEventSourceMappingsInput, ...func(*lambda.Options)) (*lambda.ListEventSourceMappingsOutput, error) {
	l.a.mappings.Add(1)
	time.Sleep(startCall)
	return &lambda.ListEventSourceMappingsOutput{}, nil
}

// startEnv is an Env on a that keeps what is said, in order.
func startEnv(a *startAccount) (*Env, *[]string) {
	var mu sync.Mutex
	said := []string{}
	say := func(kind string) func(string, ...any) {
		return func(f string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			said = append(said, kind+": "+fmt.Sprintf(f, args...))
		}
	}
	return &Env{SQS: a, Region: "us-east-1", Now: time.Now, Info: say("info"), Warn: say("warn"),
		Before: func([]incident.Event) Before { return Before{} },
		Lambda: func(context.Context) (LambdaClient, error) { return startLambda{a: a}, nil }}, &said
}

// The guard's reads of the destination queue start as soon as the queue
// is known, not after the plan: --to's queue's mappings and consumers are
// read while the source queues are scanned (40 queues, the listing call
// denied: three rounds of reads after the listing), the one source
// queue's while the DLQ is sampled. One after another the start took a
// round trip more (the mappings, read by Guard once Resolve was done):
// six round trips with --to, four without. What is read is the same
// (the two mapping listings Guard always made), and so is what is said.
func TestGuardReadsStartWithTheDestination(t *testing.T) {
	for _, tc := range []struct {
		name   string
		req    Request
		source bool
		// trips is the start's length in calls: with --to the scan's
		// (denied listing, ListQueues, 41 reads 16 at a time) outlasts
		// --to's resolving and its mappings (three); without, the
		// source's listing and reading, then the sample, beside which
		// the mappings are read.
		trips int
		said  []string
	}{
		{name: "--to, sources scanned", req: Request{To: "orders", Canary: -1}, trips: 5,
			said: []string{"info: fix deployed: not checked: no classification in this incident (run mfdlq classify to check the consumer against the first failure)"}},
		{name: "the one source, sampled", req: Request{Canary: -1}, source: true, trips: 3,
			said: []string{
				"info: fix deployed: not checked: no classification in this incident (run mfdlq classify to check the consumer against the first failure)",
				"warn: canary: no Lambda event source mapping reads orders: mfdlq cannot tell what consumes it (ECS, EC2, another account); the canary passes only if its messages leave the queue and none come back",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, err := incident.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			synctest.Test(t, func(t *testing.T) {
				a := &startAccount{source: tc.source}
				env, said := startEnv(a)
				dlq := &sqsapi.Queue{Name: "orders-dlq", URL: startBase + "orders-dlq", ARN: "arn:aws:sqs:us-east-1:123456789012:orders-dlq", Region: "us-east-1", Depth: sqsapi.Depth{Visible: 50}}
				ctx := context.Background()
				begun := time.Now()
				p, err := Resolve(ctx, env, tc.req, dlq)
				if err != nil {
					t.Fatal(err)
				}
				if err := Guard(ctx, env, ws, p); err != nil {
					t.Fatal(err)
				}
				if err := CheckLease(ctx, env, p); err != nil {
					t.Fatal(err)
				}
				took := time.Since(begun)
				if want := time.Duration(tc.trips) * startCall; took != want {
					t.Errorf("resolve and guard took %s; want %s (the mappings read after the plan: %s)", took, want, want+startCall)
				}
				if n := a.mappings.Load(); n != 2 {
					t.Errorf("%d ListEventSourceMappings; want the guard's two (consumers, mappings), read once", n)
				}
				if strings.Join(*said, "\n") != strings.Join(tc.said, "\n") {
					t.Errorf("said:\n%s\nwant:\n%s", strings.Join(*said, "\n"), strings.Join(tc.said, "\n"))
				}
			})
		})
	}
}

// A destination the plan refuses (here of another type than the DLQ) is
// refused as before, and none of its guard reads was started: nothing is
// read of a queue the redrive will not move to.
func TestGuardReadsNotStartedForARefusedDestination(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := &startAccount{}
		env, _ := startEnv(a)
		dlq := &sqsapi.Queue{Name: "orders-dlq", URL: startBase + "orders-dlq", ARN: "arn:aws:sqs:us-east-1:123456789012:orders-dlq", Region: "us-east-1"}
		_, err := Resolve(context.Background(), env, Request{To: "orders.fifo", Canary: -1}, dlq)
		if kind, _ := SortError(err, dlq.Name); kind != ErrUsage || !strings.Contains(err.Error(), "not of the same type") {
			t.Fatalf("Resolve = %v; want the type mismatch (usage)", err)
		}
		synctest.Wait()
		if n := a.mappings.Load(); n != 0 {
			t.Errorf("%d ListEventSourceMappings for a refused destination; want none", n)
		}
	})
}
