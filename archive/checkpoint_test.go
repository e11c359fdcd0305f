package archive

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// memQueue is an in-memory queue for the export's own logic: receive
// hides, delete removes by the latest receipt handle, visibility 0 shows
// again. onDelete sees every delete before it happens.
type memQueue struct {
	mu       sync.Mutex
	msgs     map[string]*memMsg
	order    []string
	gen      int
	inFlight int
	maxHeld  int
	onDelete func(ids []string)
	// limit, when set, is SQS's in-flight limit: at it a receive comes
	// back empty, or with OverLimit when overLimit is set (a short poll).
	limit     int
	overLimit bool
}

type memMsg struct {
	body, handle string
	hidden       bool
}

func newMemQueue(n int) *memQueue {
	q := &memQueue{msgs: map[string]*memMsg{}}
	for i := range n {
		id := fmt.Sprintf("id-%05d", i)
		q.msgs[id] = &memMsg{body: fmt.Sprintf(`{"n":%d}`, i)}
		q.order = append(q.order, id)
	}
	return q
}

func (q *memQueue) ReceiveMessage(_ context.Context, in *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := &sqs.ReceiveMessageOutput{}
	want := int(in.MaxNumberOfMessages)
	if q.limit > 0 {
		if q.inFlight >= q.limit {
			if q.overLimit {
				return nil, &types.OverLimit{Message: aws.String("too many messages in flight")}
			}
			return out, nil
		}
		want = min(want, q.limit-q.inFlight)
	}
	for _, id := range q.order {
		m, ok := q.msgs[id]
		if !ok || m.hidden {
			continue
		}
		q.gen++
		m.hidden, m.handle = true, id+"#"+strconv.Itoa(q.gen)
		q.inFlight++
		out.Messages = append(out.Messages, types.Message{MessageId: aws.String(id), Body: aws.String(m.body), ReceiptHandle: aws.String(m.handle),
			MD5OfBody: aws.String(md5Hex(m.body))})
		if len(out.Messages) == want {
			break
		}
	}
	q.maxHeld = max(q.maxHeld, q.inFlight)
	return out, nil
}

func (q *memQueue) ChangeMessageVisibilityBatch(_ context.Context, in *sqs.ChangeMessageVisibilityBatchInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, e := range in.Entries {
		for _, m := range q.msgs {
			if m.handle == aws.ToString(e.ReceiptHandle) && e.VisibilityTimeout == 0 && m.hidden {
				m.hidden = false
				q.inFlight--
			}
		}
	}
	return &sqs.ChangeMessageVisibilityBatchOutput{}, nil
}

func (q *memQueue) DeleteMessageBatch(_ context.Context, in *sqs.DeleteMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	var ids []string
	for _, e := range in.Entries {
		id, _, _ := cutHash(aws.ToString(e.ReceiptHandle))
		ids = append(ids, id)
	}
	if q.onDelete != nil {
		q.onDelete(ids)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	out := &sqs.DeleteMessageBatchOutput{}
	for i, e := range in.Entries {
		if m, ok := q.msgs[ids[i]]; ok && m.handle == aws.ToString(e.ReceiptHandle) {
			delete(q.msgs, ids[i])
			q.inFlight--
			out.Successful = append(out.Successful, types.DeleteMessageBatchResultEntry{Id: e.Id})
		}
	}
	return out, nil
}

func (q *memQueue) GetQueueAttributes(context.Context, *sqs.GetQueueAttributesInput, ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return &sqs.GetQueueAttributesOutput{Attributes: map[string]string{
		string(types.QueueAttributeNameApproximateNumberOfMessages): strconv.Itoa(len(q.msgs) - q.inFlight)}}, nil
}

func cutHash(h string) (string, string, bool) {
	for i := range h {
		if h[i] == '#' {
			return h[:i], h[i+1:], true
		}
	}
	return h, "", false
}

// readIDs reads the MessageIds of an export file: gzip members one after
// the other, up to the last whole one.
func readIDs(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ids := map[string]int{}
	gz, err := gzip.NewReader(f)
	if err == io.EOF {
		return ids
	}
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(gz)
	for sc.Scan() {
		var m struct{ MessageId string }
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			ids[m.MessageId]++
		}
	}
	return ids
}

// With --delete into a local .gz file, the export deletes at checkpoints:
// every message it deletes is already in the fsynced file (whole gzip
// members), it holds no more than a checkpoint's messages, and the final
// file is one readable stream of every message once.
func TestExportDeletesAtCheckpointsOnlyWhatIsDurable(t *testing.T) {
	t.Parallel()
	const n, every = 2500, 1000
	out := filepath.Join(t.TempDir(), "dlq.jsonl.gz")
	sink, err := NewFileSink(out)
	if err != nil {
		t.Fatal(err)
	}
	q := newMemQueue(n)
	deletes := 0
	q.onDelete = func(ids []string) {
		deletes++
		// Before the commit the partial file is what a crash leaves; after
		// it, the final file.
		path := sink.(Checkpointer).Partial()
		if _, err := os.Stat(path); err != nil {
			path = out
		}
		durable := readIDs(t, path)
		for _, id := range ids {
			if durable[id] != 1 {
				t.Fatalf("delete of %s before it is in the durable file (%d there)", id, durable[id])
			}
		}
	}
	st, err := Export(context.Background(), q, sink, Options{Queue: &sqsapi.Queue{Name: "dlq", URL: "mem"}, Backlog: n, Delete: true, Gzip: true, Checkpoint: every, Wait: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st.Exported != n || st.Deleted != n || st.NotDeleted != 0 || len(q.msgs) != 0 {
		t.Fatalf("exported %d, deleted %d, not deleted %d, %d left in the queue", st.Exported, st.Deleted, st.NotDeleted, len(q.msgs))
	}
	if q.maxHeld > every+10 {
		t.Errorf("held %d messages at once, more than a checkpoint's %d", q.maxHeld, every)
	}
	got := readIDs(t, out)
	if len(got) != n {
		t.Fatalf("the file holds %d distinct messages, want %d", len(got), n)
	}
	for id, k := range got {
		if k != 1 {
			t.Fatalf("%s is %d times in the file", id, k)
		}
	}
	if deletes < 2*every/10 {
		t.Errorf("only %d delete calls: no checkpoints", deletes)
	}
}

// Without --delete nothing is deleted and every message is made visible
// again at the end, as before: no checkpoint.
func TestExportWithoutDeleteHasNoCheckpoint(t *testing.T) {
	t.Parallel()
	sink, err := NewFileSink(filepath.Join(t.TempDir(), "dlq.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	q := newMemQueue(300)
	q.onDelete = func([]string) { t.Fatal("a delete without --delete") }
	st, err := Export(context.Background(), q, sink, Options{Queue: &sqsapi.Queue{Name: "dlq", URL: "mem"}, Backlog: 300, Checkpoint: 100, Wait: 1})
	if err != nil || st.Exported != 300 || st.Released != 300 || q.inFlight != 0 {
		t.Fatalf("%+v, %v, %d in flight", st, err, q.inFlight)
	}
}
