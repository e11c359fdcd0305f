package archive

import (
	"context"
	"hash/maphash"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// hold is every message the export has received and not let go of, with
// its latest receipt handle (a repeated receive rotates it, and SQS acts
// only on the latest).
type hold struct {
	c          SQS
	url        string
	visibility time.Duration

	mu      sync.Mutex
	handles map[string]string // MessageId → latest receipt handle
	order   []string          // MessageIds in the order first received
	written map[string]bool
	// seen holds a 64-bit digest of every MessageId received, held or
	// deleted at a checkpoint since: 16 bytes or so a message where the
	// held messages' handles cost hundreds. Two ids share a digest with a
	// probability of about n²/2⁶⁵ (3·10⁻⁸ for a million); the later one
	// is then taken for a message read already: held, never written, made
	// visible again at the end — left in the DLQ, never lost.
	seen map[uint64]struct{}
	seed maphash.Seed
}

func newHold(c SQS, url string, visibility time.Duration) *hold {
	return &hold{c: c, url: url, visibility: visibility, handles: map[string]string{}, written: map[string]bool{},
		seen: map[uint64]struct{}{}, seed: maphash.MakeSeed()}
}

// hold records msgs and returns those never received before.
func (h *hold) hold(msgs []types.Message) []sqsjson.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	var fresh []sqsjson.Message
	for _, raw := range msgs {
		m := sqsapi.FromSDK(raw)
		d := maphash.String(h.seed, m.MessageId)
		_, old := h.seen[d]
		if !old {
			h.seen[d] = struct{}{}
			fresh = append(fresh, m)
		}
		if _, held := h.handles[m.MessageId]; !held {
			h.order = append(h.order, m.MessageId)
		}
		h.handles[m.MessageId] = m.ReceiptHandle
	}
	return fresh
}

func (h *hold) markWritten(id string) {
	h.mu.Lock()
	h.written[id] = true
	h.mu.Unlock()
}

// renewEvery extends the hold of every message each period until the
// returned stop is called, so a long export keeps what it has read hidden.
func (h *hold) renewEvery(period time.Duration) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(period, time.Second))
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				h.change(context.Background(), h.ids(func(string) bool { return true }), int32(h.visibility/time.Second))
			}
		}
	}()
	return func() { close(quit); <-done }
}

// ids returns the held MessageIds keep accepts, in receive order.
func (h *hold) ids(keep func(string) bool) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, id := range h.order {
		if _, ok := h.handles[id]; ok && keep(id) {
			out = append(out, id)
		}
	}
	return out
}

// releaseAll makes every message still held visible again and returns
// how many SQS confirmed and how many it did not: those come back when
// their visibility timeout ends, which the caller must say.
func (h *hold) releaseAll(ctx context.Context) (released, failed int) {
	ids := h.ids(func(string) bool { return true })
	failed = h.change(ctx, ids, 0)
	h.forget(ids)
	return len(ids) - failed, failed
}

// deleteWritten deletes exactly the messages written to the file.
func (h *hold) deleteWritten(ctx context.Context) (deleted, failed int) {
	ids := h.ids(func(id string) bool { return h.written[id] })
	for start := 0; start < len(ids); start += 10 {
		chunk := ids[start:min(start+10, len(ids))]
		entries := make([]types.DeleteMessageBatchRequestEntry, len(chunk))
		for i, id := range chunk {
			entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(h.handle(id))}
		}
		out, err := h.c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(h.url), Entries: entries})
		if err != nil {
			failed += len(chunk) // still held: released at the end
			continue
		}
		var gone []string
		for _, s := range out.Successful {
			if i, err := strconv.Atoi(aws.ToString(s.Id)); err == nil && i < len(chunk) {
				gone = append(gone, chunk[i])
			}
		}
		h.forget(gone)
		deleted += len(gone)
		failed += len(chunk) - len(gone)
	}
	h.prune()
	return deleted, failed
}

// prune drops the deleted messages from the receive order, so that it
// holds only what is held.
func (h *hold) prune() {
	h.mu.Lock()
	defer h.mu.Unlock()
	kept := h.order[:0]
	for _, id := range h.order {
		if _, ok := h.handles[id]; ok {
			kept = append(kept, id)
		}
	}
	clear(h.order[len(kept):])
	h.order = kept
}

func (h *hold) handle(id string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.handles[id]
}

func (h *hold) forget(ids []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range ids {
		delete(h.handles, id)
		delete(h.written, id)
	}
}

// change sets the visibility timeout of ids, ten a call, and returns how
// many SQS did not confirm. A message already visible again
// (MessageNotInflight) needs no release.
func (h *hold) change(ctx context.Context, ids []string, seconds int32) (failed int) {
	for start := 0; start < len(ids); start += 10 {
		chunk := ids[start:min(start+10, len(ids))]
		entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(chunk))
		for i, id := range chunk {
			entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(h.handle(id)), VisibilityTimeout: seconds}
		}
		out, err := h.c.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(h.url), Entries: entries})
		if err != nil {
			failed += len(chunk)
			continue
		}
		for _, f := range out.Failed {
			if seconds != 0 || aws.ToString(f.Code) != "AWS.SimpleQueueService.MessageNotInflight" && aws.ToString(f.Code) != "MessageNotInflight" {
				failed++
			}
		}
	}
	return failed
}

// count is how many messages the export holds in flight.
func (h *hold) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.handles)
}
