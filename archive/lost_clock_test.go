package archive

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// timedQueue is an in-memory queue with SQS's visibility timeouts, on the
// clock it runs on (a synctest bubble's): a receive hides what it hands
// out until its timeout ends, and lose can drop a receive's answer after
// it acted.
type timedQueue struct {
	mu       sync.Mutex
	ids      []string
	body     map[string]string
	handle   map[string]string
	until    map[string]time.Time
	gen      int
	receives int
	// lose, when set, is asked of each receive (1: the first) and acts if
	// the receive hands out messages: "error" loses its answer to the
	// caller, "retry" hands the caller the next receive's answer instead,
	// as the SDK's retry does, and "late" acts lateBy after the call began
	// (the SDK's backoff before the attempt whose answer is lost), then
	// loses its answer.
	lose func(n int) string
}

// lateBy is how long a "late" receive's acting attempt comes after the
// call began: the SDK's backoff between attempts, some seconds on SQS.
const lateBy = 2 * time.Minute

func newTimedQueue(n int) *timedQueue {
	q := &timedQueue{body: map[string]string{}, handle: map[string]string{}, until: map[string]time.Time{}}
	for i := range n {
		id := fmt.Sprintf("id-%05d", i)
		q.ids = append(q.ids, id)
		q.body[id] = fmt.Sprintf(`{"n":%d}`, i)
	}
	return q
}

func (q *timedQueue) take(in *sqs.ReceiveMessageInput) []types.Message {
	var out []types.Message
	now := time.Now()
	for _, id := range q.ids {
		if _, ok := q.body[id]; !ok || now.Before(q.until[id]) {
			continue
		}
		q.gen++
		q.handle[id] = id + "#" + strconv.Itoa(q.gen)
		q.until[id] = now.Add(time.Duration(in.VisibilityTimeout) * time.Second)
		out = append(out, types.Message{MessageId: aws.String(id), Body: aws.String(q.body[id]), ReceiptHandle: aws.String(q.handle[id]), MD5OfBody: aws.String(md5Hex(q.body[id]))})
		if len(out) == int(in.MaxNumberOfMessages) {
			break
		}
	}
	return out
}

func (q *timedQueue) ReceiveMessage(_ context.Context, in *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	q.mu.Lock()
	q.receives++
	how := ""
	if q.lose != nil {
		how = q.lose(q.receives)
	}
	q.mu.Unlock()
	if how == "late" {
		time.Sleep(lateBy) // the bubble's clock
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs := q.take(in)
	if len(msgs) > 0 {
		switch how {
		case "error", "late":
			return nil, errors.New("read: connection reset by peer (the server acted)")
		case "retry":
			msgs = q.take(in)
		}
	}
	return &sqs.ReceiveMessageOutput{Messages: msgs}, nil
}

func (q *timedQueue) ChangeMessageVisibilityBatch(_ context.Context, in *sqs.ChangeMessageVisibilityBatchInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := &sqs.ChangeMessageVisibilityBatchOutput{}
	for _, e := range in.Entries {
		id, _, _ := cutHash(aws.ToString(e.ReceiptHandle))
		if q.handle[id] != aws.ToString(e.ReceiptHandle) {
			out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("ReceiptHandleIsInvalid"), SenderFault: true})
			continue
		}
		q.until[id] = time.Now().Add(time.Duration(e.VisibilityTimeout) * time.Second)
		out.Successful = append(out.Successful, types.ChangeMessageVisibilityBatchResultEntry{Id: e.Id})
	}
	return out, nil
}

func (q *timedQueue) DeleteMessageBatch(_ context.Context, in *sqs.DeleteMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := &sqs.DeleteMessageBatchOutput{}
	for _, e := range in.Entries {
		id, _, _ := cutHash(aws.ToString(e.ReceiptHandle))
		if q.handle[id] == aws.ToString(e.ReceiptHandle) {
			delete(q.body, id)
			out.Successful = append(out.Successful, types.DeleteMessageBatchResultEntry{Id: e.Id})
		}
	}
	return out, nil
}

func (q *timedQueue) GetQueueAttributes(context.Context, *sqs.GetQueueAttributesInput, ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	hidden := 0
	for id := range q.body {
		if time.Now().Before(q.until[id]) {
			hidden++
		}
	}
	return &sqs.GetQueueAttributesOutput{Attributes: map[string]string{
		string(types.QueueAttributeNameApproximateNumberOfMessages):           strconv.Itoa(len(q.body) - hidden),
		string(types.QueueAttributeNameApproximateNumberOfMessagesNotVisible): strconv.Itoa(hidden)}}, nil
}

// The lost-receive wait on the export's clock: a receive that acted and
// lost its answer (to the caller, or behind the SDK's retry) hid a batch
// for a ten-minute visibility; the export waits until it is back, looks
// again and writes every message once, then makes all visible again. When
// the attempt that acted came late in the call (the SDK's backoff), the
// wait counts from the error, not from the call's start: counted from the
// start it ends before the batch is back, and the export looks twice. In a
// synctest bubble the ten minutes pass in no wall time; the moto test
// (TestExportLostReceiveAnswerWaitsAndLooksAgain) covers the same through
// the SDK.
func TestExportWaitsForALostReceiveOnItsClock(t *testing.T) {
	t.Parallel()
	const n = 25
	const visibility = 10 * time.Minute
	for _, how := range []string{"error", "retry", "late"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := newTimedQueue(n)
				q.lose = func(i int) string {
					if i == 2 {
						return how
					}
					return ""
				}
				out := filepath.Join(t.TempDir(), "dlq.jsonl.gz")
				sink, err := NewFileSink(out)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				var waits []time.Time
				st, err := Export(context.Background(), q, sink, Options{Queue: &sqsapi.Queue{Name: "dlq", URL: "mem"}, Backlog: n, Gzip: true, Wait: 1, Visibility: visibility,
					Waiting: func(hidden int, until time.Time) { waits = append(waits, until) }})
				if err != nil {
					t.Fatal(err)
				}
				back := visibility
				if how == "late" {
					back += lateBy
				}
				if len(waits) != 1 || waits[0].Before(start.Add(back)) || time.Since(start) < back {
					t.Fatalf("waits %v, %s passed; want one wait, until the hidden batch is back (%s)", waits, time.Since(start), back)
				}
				got := readIDs(t, out)
				for _, id := range q.ids {
					if got[id] != 1 {
						t.Errorf("%s: %d times in the file, want 1", id, got[id])
					}
				}
				if st.Exported != n || st.Hidden != 0 || st.Released != n || st.NotReleased != 0 {
					t.Fatalf("exported %d, hidden %d, released %d (not %d); want %d, 0, %d, 0", st.Exported, st.Hidden, st.Released, st.NotReleased, n, n)
				}
				for id, until := range q.until {
					if time.Now().Before(until) {
						t.Fatalf("%s still hidden after the export", id)
					}
				}
			})
		})
	}
}
