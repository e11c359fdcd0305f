package archive

import (
	"context"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/receipts"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// handles is every message the export has received and not let go of, with
// its latest receipt handle (a repeated receive rotates it, and SQS acts
// only on the latest), in the receive engine's table (receipts). A
// message once received keeps a 64-bit digest after it is deleted at a
// checkpoint: received again, it is held, never written twice, and made
// visible again at the end — left in the DLQ, never lost.
type handles struct {
	c          SQS
	url        string
	visibility time.Duration
	clock      receipts.Clock

	mu sync.Mutex
	t  *receipts.Table
}

func newHandles(c SQS, url string, visibility time.Duration, clock receipts.Clock) *handles {
	return &handles{c: c, url: url, visibility: visibility, clock: clock, t: receipts.NewTable(0)}
}

// add records msgs and returns those never received before.
func (h *handles) add(msgs []types.Message) []sqsjson.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	var fresh []sqsjson.Message
	for _, raw := range msgs {
		m := sqsapi.FromSDK(raw)
		if h.t.See(m.MessageId) {
			fresh = append(fresh, m)
		}
		h.t.Hold(m.MessageId, m.ReceiptHandle)
	}
	return fresh
}

// markWritten notes a held message written to the file: deleted at the
// next checkpoint, or at the end.
func (h *handles) markWritten(id string) {
	h.mu.Lock()
	h.t.Take(id)
	h.mu.Unlock()
}

// renewEvery extends the hold of every message each period until the
// returned stop is called, so a long export keeps what it has read hidden.
func (h *handles) renewEvery(period time.Duration) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for receipts.Sleep(h.clock, max(period, time.Second), quit) {
			receipts.SetVisibility(context.Background(), h.c, h.url, h.messages(false), int32(h.visibility/time.Second), nil)
		}
	}()
	return func() { close(quit); <-done }
}

// messages returns the held messages (only those written, if written),
// in receive order.
func (h *handles) messages(written bool) []receipts.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.t.HeldMessages(written)
}

// releaseAll makes every message still held visible again and returns
// how many SQS confirmed and how many it did not: those come back when
// their visibility timeout ends, which the caller must say.
func (h *handles) releaseAll(ctx context.Context) (released, failed int) {
	msgs := h.messages(false)
	failed = len(receipts.Release(ctx, h.c, h.url, msgs, nil))
	h.forget(msgs)
	return len(msgs) - failed, failed
}

// deleteWritten deletes exactly the messages written to the file; those
// it could not are still held, released at the end.
func (h *handles) deleteWritten(ctx context.Context) (deleted, failed int) {
	msgs := h.messages(true)
	gone := receipts.Delete(ctx, h.c, h.url, msgs, nil)
	h.forget(gone)
	return len(gone), len(msgs) - len(gone)
}

func (h *handles) forget(msgs []receipts.Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range msgs {
		h.t.LetGo(m.ID)
	}
}

// count is how many messages the export holds in flight.
func (h *handles) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.t.Held()
}
