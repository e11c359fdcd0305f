package sqsapi

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// slowAccount is an account of many queues where ListDeadLetterSourceQueues
// is denied and every call takes callTime: the scan's fallback.
type slowAccount struct {
	deniedSources
	urls  []string
	reads atomic.Int32
}

const callTime = 20 * time.Millisecond

func (a *slowAccount) ListQueues(context.Context, *sqs.ListQueuesInput, ...func(*sqs.Options)) (*sqs.ListQueuesOutput, error) {
	time.Sleep(callTime)
	return &sqs.ListQueuesOutput{QueueUrls: a.urls}, nil
}

func (a *slowAccount) GetQueueAttributes(_ context.Context, in *sqs.GetQueueAttributesInput, _ ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	time.Sleep(callTime)
	a.reads.Add(1)
	name := NameOf(aws.ToString(in.QueueUrl))
	attrs := map[string]string{"QueueArn": "arn:aws:sqs:eu-west-1:123456789012:" + name}
	if strings.HasPrefix(name, "src") {
		attrs["RedrivePolicy"] = `{"deadLetterTargetArn":"arn:aws:sqs:eu-west-1:123456789012:dlq","maxReceiveCount":5}`
	}
	return &sqs.GetQueueAttributesOutput{Attributes: attrs}, nil
}

// The scan for sources (ListDeadLetterSourceQueues denied) reads the
// account's queues concurrently: read one after another, 40 queues at
// 20 ms a call held a redrive 0.8 s before its first send, and more with
// every queue the account held (the spread of movebench's rounds, whose
// server kept every round's queues).
func TestSourceScanReadsQueuesConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const base = "https://sqs.eu-west-1.amazonaws.com/123456789012/"
		a := &slowAccount{urls: []string{base + "dlq"}}
		for i := range 40 {
			name := fmt.Sprintf("other-%02d", i)
			if i == 7 || i == 30 {
				name = fmt.Sprintf("src-%02d", i)
			}
			a.urls = append(a.urls, base+name)
		}
		dlq := &Queue{Name: "dlq", URL: base + "dlq", ARN: "arn:aws:sqs:eu-west-1:123456789012:dlq", Region: "eu-west-1"}
		start := time.Now()
		got, err := SourceQueues(context.Background(), a, dlq)
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		if want := []string{"src-07", "src-30"}; !slices.Equal(names(got), want) {
			t.Fatalf("sources = %v; want %v", names(got), want)
		}
		if n := a.reads.Load(); n != 40 {
			t.Errorf("%d queues read; want the 40 besides the DLQ", n)
		}
		// The denied call, the listing, then 40 reads 16 at a time: three
		// rounds of calls.
		if want := (2 + 3) * callTime; took > want {
			t.Errorf("scan took %s; want at most %s (the listing and 40 reads one after another: %s)", took, want, 41*callTime)
		}
	})
}

// listedAccount answers ListDeadLetterSourceQueues with its sources; every
// call takes callTime.
type listedAccount struct {
	slowAccount
	sources []string
}

func (a *listedAccount) ListDeadLetterSourceQueues(context.Context, *sqs.ListDeadLetterSourceQueuesInput, ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error) {
	time.Sleep(callTime)
	return &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: a.sources}, nil
}

// A DLQ that ListDeadLetterSourceQueues says 40 queues share has them read
// concurrently too: the listed path reads each source as the scan does.
func TestListedSourcesAreReadConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const base = "https://sqs.eu-west-1.amazonaws.com/123456789012/"
		a := &listedAccount{}
		for i := range 40 {
			a.sources = append(a.sources, fmt.Sprintf("%ssrc-%02d", base, 39-i))
		}
		dlq := &Queue{Name: "dlq", URL: base + "dlq", ARN: "arn:aws:sqs:eu-west-1:123456789012:dlq", Region: "eu-west-1"}
		start := time.Now()
		got, err := SourceQueues(context.Background(), a, dlq)
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		if len(got) != 40 || got[0].Name != "src-00" || got[39].Name != "src-39" || got[0].Region != "eu-west-1" {
			t.Fatalf("sources = %v; want src-00 … src-39, sorted, in eu-west-1", names(got))
		}
		// The listing, then 40 reads 16 at a time: four rounds of calls.
		if want := (1 + 3) * callTime; took > want {
			t.Errorf("reading the listed sources took %s; want at most %s (one after another: %s)", took, want, 41*callTime)
		}
	})
}
