package mover

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/redrive/retry"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// deleteAll deletes exactly the given messages from the DLQ and journals
// each deletion; resumed is how many of them an earlier run had sent.
func (m *Mover) deleteAll(ctx context.Context, msgs []sqsjson.Message, resumed int) {
	for start := 0; start < len(msgs); start += batchSize {
		chunk := msgs[start:min(start+batchSize, len(msgs))]
		ids := make([]string, len(chunk))
		for i := range chunk {
			ids[i] = chunk[i].MessageId
		}
		m.mu.Lock()
		m.t.StartDelete(ids)
		m.mu.Unlock()
		out, err := m.batchCall(ctx, len(chunk), func(ctx context.Context, pending []int) (map[string]string, []types.BatchResultErrorEntry, error) {
			entries := make([]types.DeleteMessageBatchRequestEntry, len(pending))
			for j, i := range pending {
				entries[j] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(m.handleOf(&chunk[i]))}
			}
			res, err := m.c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(m.o.Source.URL), Entries: entries}, retry.NoSDK)
			if err != nil {
				return nil, nil, err
			}
			done := make(map[string]string, len(res.Successful))
			for _, s := range res.Successful {
				done[aws.ToString(s.Id)] = ""
			}
			return done, res.Failed, nil
		})
		if err != nil && !retry.Retryable(err) {
			// The whole call was refused (no permission, the DLQ deleted):
			// every delete would be, so the run stops. The messages were
			// sent and journaled: the next run deletes them.
			m.fail(fmt.Errorf("delete batch from %s: %w", m.o.Source.Name, err))
		}
		now := m.o.Clock.Now().UTC()
		var entries []journal.Entry
		var unfinished []string
		// The delete closes the send to the same destination (the
		// ledger's key): each message's own.
		m.mu.Lock()
		for i, msg := range chunk {
			if _, ok := out.ok[strconv.Itoa(i)]; ok {
				entries = append(entries, journal.Entry{Time: now, Run: m.o.RunID, Attempt: m.o.Attempt, Op: journal.OpDeleted, DLQMessageID: msg.MessageId, DestQueue: m.destFor(msg.MessageId).URL})
				m.paid(msg.MessageId, true)
			} else {
				unfinished = append(unfinished, msg.MessageId)
			}
			if start+i >= len(msgs)-resumed {
				m.stats.Resumed++
				m.countDest(m.destFor(msg.MessageId).URL, 1, 0)
			}
		}
		m.mu.Unlock()
		for _, id := range unfinished {
			// Still in the DLQ, hidden for up to the visibility timeout:
			// received again, it is deleted then.
			m.owe(id, true)
		}
		// Let go of the chunk at once: SQS may have removed even a message
		// whose delete reported a failure, so the drain check must not
		// count them as ours; one still there is received again and
		// deleted then (it was sent).
		// In one step with the count of deletes under way: between the two,
		// the drain check would count the chunk as held — messages SQS has
		// removed — and could take the DLQ for drained while messages a
		// lost receive hid were still in it (a run that ended "moved 99"
		// with one of the selection left behind).
		m.unhold(ids)
		if werr := m.o.Journal.Write(entries...); werr != nil {
			m.fail(werr)
		}
		m.mu.Lock()
		m.stats.PendingDelete += len(chunk) - len(entries)
		if err != nil {
			m.stats.LastError = err.Error()
		}
		m.mu.Unlock()
	}
}

// handleOf is the latest receipt handle known for msg.
func (m *Mover) handleOf(msg *sqsjson.Message) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if h := m.t.Handle(msg.MessageId); h != "" {
		return h
	}
	return msg.ReceiptHandle
}
