package mover

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/receipts"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/redrive/retry"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// maxBatchBytes is SQS's limit on a whole SendMessageBatch's payload: 1 MiB
// (1,048,576 bytes) since 2025, as the SendMessageBatch reference says.
const maxBatchBytes = 1 << 20

// batchBytes is what one batch to dest may carry: SQS's batch limit, and
// no more than the queue's own MaximumMessageSize (256 KiB on a queue that
// has not raised it, or one not read) — a queue that takes 1 MiB messages
// takes a 1 MiB batch, one that kept 256 KiB is sent as before.
func batchBytes(dest *sqsapi.Queue) int { return min(maxBatchBytes, maxBytes(dest)) }

// partialError is a batch some entries of which failed on SQS's side: the
// retry sends only those again.
type partialError struct{ left int }

func (e *partialError) Error() string {
	return fmt.Sprintf("%d entries failed on the server side", e.left)
}
func (e *partialError) RetryableError() bool { return true }

// entryOutcome is what became of the entries of one batch call.
type entryOutcome struct {
	ok      map[string]string // entry id → destination MessageId ("" for deletes)
	final   map[string]string // entry id → SQS's reason: a 4xx for this entry
	pending map[string]bool   // entry ids still not done when retries ran out
}

// sendAll sends msgs to their destinations (one batch call per
// destination), journals each one sent, and returns them for deletion.
// Messages that could not be sent are left in the DLQ, made visible again.
func (m *Mover) sendAll(ctx context.Context, msgs []sqsjson.Message) []sqsjson.Message {
	if m.o.Route == nil {
		return m.sendTo(ctx, m.o.Dest, msgs)
	}
	var sent []sqsjson.Message
	qs, groups := m.byDest(msgs)
	for i, q := range qs {
		sent = append(sent, m.sendTo(ctx, q, groups[i])...)
	}
	return sent
}

// sendTo sends msgs to the one destination dest. From a FIFO DLQ to a
// FIFO queue it sends them in rounds (fifoRounds): a group has at most one
// message in a call, and a group one of whose messages was not sent has no
// more sent in this batch (stopGroups).
func (m *Mover) sendTo(ctx context.Context, dest *sqsapi.Queue, msgs []sqsjson.Message) []sqsjson.Message {
	var sent []sqsjson.Message
	msgs, stamps := m.stampAll(dest, msgs)
	stopped := map[string]bool{}
	for _, round := range m.fifoRounds(dest, msgs) {
		round = m.stopGroups(round, stopped)
		for _, chunk := range bySize(round, batchBytes(dest)) {
			ok, back, journaled := m.sendBatch(ctx, dest, chunk, stamps)
			sent = append(sent, ok...)
			if !journaled {
				return sent
			}
			for _, msg := range back {
				if g := msg.Attributes[sqsjson.AttrMessageGroupId]; g != "" {
					stopped[g] = true
				}
			}
		}
	}
	return sent
}

// sendBatch sends one batch call's messages to dest and journals what
// became of them: ok is what was sent, back what stays in the DLQ (made
// visible again, refused or to be tried again); journaled is false when
// the journal could not be written (the run stops).
func (m *Mover) sendBatch(ctx context.Context, dest *sqsapi.Queue, chunk []sqsjson.Message, stamps map[string]provenance.Result) (ok, back []sqsjson.Message, journaled bool) {
	out, err := m.sendChunk(ctx, dest, chunk)
	if err != nil && !retry.Retryable(err) { // a partialError is retryable
		// The whole call was refused (no permission, no such queue,
		// a KMS key): every batch would be, so the run stops.
		m.fail(fmt.Errorf("send batch to %s: %w", dest.Name, err))
	}
	now := m.o.Clock.Now().UTC()
	var entries, failed []journal.Entry
	var refused []sqsjson.Message
	var stamped provenance.Counts
	for i, msg := range chunk {
		id := strconv.Itoa(i)
		switch destID, done := out.ok[id]; {
		case done:
			ok = append(ok, msg)
			if stamps != nil {
				stamped.Add(stamps[msg.MessageId])
			}
			e := journal.Entry{Time: now, Run: m.o.RunID, Attempt: m.o.Attempt, Op: journal.OpSent, DLQMessageID: msg.MessageId, BodySHA256: sqsjson.BodySHA256(msg.Body), DestQueue: dest.URL, DestMessageID: destID, Key: m.keyOf(msg.MessageId)}
			if m.o.Target != nil || m.o.Transform != nil {
				// A repaired copy is known by its new payload: its
				// return to the DLQ (in a new envelope, with a new
				// MessageId) is a return.
				e.PayloadSHA256 = m.payloadSHA256(&msg)
			}
			entries = append(entries, e)
		case out.final[id] != "" || m.deferOnce(msg.MessageId, dest.URL):
			reason := out.final[id]
			if reason == "" {
				reason = errString(err)
			}
			failed = append(failed, journal.Entry{Time: now, Run: m.o.RunID, Attempt: m.o.Attempt, Op: journal.OpFailed, DLQMessageID: msg.MessageId, DestQueue: dest.URL, Error: reason})
			back = append(back, msg)
			refused = append(refused, msg)
		default:
			// Tried again when it comes back: the run waits for it.
			m.owe(msg.MessageId, false)
			back = append(back, msg)
		}
	}
	if err := m.journal(entries, failed); err != nil {
		m.fail(err)
		m.unreserve(len(chunk))
		return nil, nil, false // sent but not journaled: never delete those
	}
	m.record(dest.URL, entries, failed, err, len(chunk), stamped, refused)
	m.release(back)
	return ok, back, true
}

// journal writes the sent entries: the point after which a crash of mfdlq
// no longer duplicates these messages (see Writer for a crash of the
// machine).
func (m *Mover) journal(sent, failed []journal.Entry) error {
	return m.o.Journal.Write(append(sent, failed...)...)
}

func (m *Mover) record(dest string, sent, failed []journal.Entry, err error, reserved int, stamped provenance.Counts, refused []sqsjson.Message) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats.Stamps = m.stats.Stamps.Plus(stamped)
	for _, e := range sent {
		if !m.o.Journal.Applies(m.o.State) {
			m.o.State.Apply(e) // a writer of Open applied it already
		}
		m.t.Finish(e.DLQMessageID) // counted as moved: never again as resumed
		m.paid(e.DLQMessageID, false)
	}
	for _, e := range failed {
		m.t.Finish(e.DLQMessageID)
		m.paid(e.DLQMessageID, false)
	}
	for i := range refused {
		m.blockGroup(&refused[i])
	}
	m.stats.Moved += len(sent)
	m.stats.Failed += len(failed)
	m.countDest(dest, len(sent), len(failed))
	m.reserved -= reserved
	if err != nil {
		m.stats.LastError = err.Error()
	}
}

// deferral is a message whose batches ran out of retries: how often, and
// the destination they were for.
type deferral struct {
	n    int
	dest string
}

// deferOnce counts a message whose batch to dest ran out of retries; true
// when it has now failed too often to try again in this run.
func (m *Mover) deferOnce(id, dest string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.deferred == nil {
		m.deferred = map[string]deferral{}
	}
	d := m.deferred[id]
	d.n++
	d.dest = dest
	m.deferred[id] = d
	if d.n >= maxDeferrals {
		m.t.Finish(id)
		return true
	}
	return false
}

// countUnsent counts as failed the messages whose batches ran out of
// retries and that the run ended without trying again (the backlog was
// all seen): they are in the DLQ, and a run that ends so must not look
// like a complete one.
func (m *Mover) countUnsent() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, d := range m.deferred {
		if op := m.o.State.Of(id, d.dest).Op; d.n < maxDeferrals && op != journal.OpSent && op != journal.OpDeleted {
			m.stats.Failed++
			m.countDest(d.dest, 0, 1)
		}
	}
}

func (m *Mover) sendChunk(ctx context.Context, dest *sqsapi.Queue, chunk []sqsjson.Message) (entryOutcome, error) {
	if m.o.Target != nil {
		return m.batchCall(ctx, len(chunk), func(ctx context.Context, pending []int) (map[string]string, []types.BatchResultErrorEntry, error) {
			return m.o.Target.Send(ctx, chunk, pending)
		})
	}
	return m.batchCall(ctx, len(chunk), func(ctx context.Context, pending []int) (map[string]string, []types.BatchResultErrorEntry, error) {
		entries := make([]types.SendMessageBatchRequestEntry, len(pending))
		for j, i := range pending {
			entries[j] = sendEntry(dest, strconv.Itoa(i), &chunk[i])
		}
		res, err := m.c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(dest.URL), Entries: entries}, retry.NoSDK)
		if err != nil {
			return nil, nil, err
		}
		done := make(map[string]string, len(res.Successful))
		for _, s := range res.Successful {
			done[aws.ToString(s.Id)] = aws.ToString(s.MessageId)
		}
		return done, res.Failed, nil
	})
}

// batchCall makes one batch call of n entries (Ids "0", "1", …) under the
// retry policy. Each attempt carries only the entries still pending, by
// index; call returns what succeeded (Id → the answer's value, "" when
// there is none) and what failed. Sender faults are final, the rest is
// retried (see settleFailed).
func (m *Mover) batchCall(ctx context.Context, n int, call func(ctx context.Context, pending []int) (map[string]string, []types.BatchResultErrorEntry, error)) (entryOutcome, error) {
	out := entryOutcome{ok: map[string]string{}, final: map[string]string{}, pending: map[string]bool{}}
	for i := range n {
		out.pending[strconv.Itoa(i)] = true
	}
	err := m.o.Retry.Do(ctx, func(ctx context.Context) error {
		var pending []int
		for i := range n {
			if out.pending[strconv.Itoa(i)] {
				pending = append(pending, i)
			}
		}
		t0 := m.o.Clock.Now()
		done, failed, err := call(ctx, pending)
		if err == nil && len(failed) > 0 {
			m.ctl.Call(receipts.Since(m.o.Clock, t0), entryCongestion(failed))
		} else {
			m.ctl.Call(receipts.Since(m.o.Clock, t0), err)
		}
		if err != nil {
			return err
		}
		for id, v := range done {
			out.ok[id] = v
			delete(out.pending, id)
		}
		return settleFailed(&out, failed)
	})
	return out, err
}

// entryCongestion is the first failed entry that says slow down, as an
// error the concurrency controller reads; nil when none does. A Lambda
// target is throttled per Invoke, and PutEvents and PublishBatch may be per
// entry: the call itself succeeds, and without this the controller would
// keep adding batches in flight against a target that refuses them.
func entryCongestion(failed []types.BatchResultErrorEntry) error {
	for _, f := range failed {
		if code := aws.ToString(f.Code); !f.SenderFault && awserr.RetryableCode(code) {
			return &smithy.GenericAPIError{Code: code, Message: aws.ToString(f.Message), Fault: smithy.FaultClient}
		}
	}
	return nil
}

// settleFailed files the failed entries of a batch: SenderFault ones are
// final (a 4xx for that message), the others are retried.
func settleFailed(out *entryOutcome, failed []types.BatchResultErrorEntry) error {
	for _, f := range failed {
		id := aws.ToString(f.Id)
		if f.SenderFault {
			out.final[id] = aws.ToString(f.Code) + ": " + aws.ToString(f.Message)
			delete(out.pending, id)
		}
	}
	if len(out.pending) > 0 {
		return &partialError{left: len(out.pending)}
	}
	return nil
}

// sendEntry keeps the body, every message attribute and the
// MessageGroupId (a fair queue's tenant on a standard queue). On FIFO
// queues it derives the deduplication id from the DLQ
// MessageId, so a resend after a crash within SQS's five-minute window is
// dropped by SQS itself.
func sendEntry(dest *sqsapi.Queue, id string, msg *sqsjson.Message) types.SendMessageBatchRequestEntry {
	e := types.SendMessageBatchRequestEntry{
		Id:                aws.String(id),
		MessageBody:       aws.String(msg.Body),
		MessageAttributes: sqsapi.ToSDKAttributes(msg.MessageAttributes),
	}
	group := msg.Attributes[sqsjson.AttrMessageGroupId]
	if dest.FIFO {
		if group == "" {
			group = "mfdlq-redrive"
		}
		e.MessageGroupId = aws.String(group)
		e.MessageDeduplicationId = aws.String("mfdlq-" + msg.MessageId)
	} else if group != "" {
		// A standard queue takes a MessageGroupId since fair queues
		// (2025): it names the message's tenant, and without it a
		// redrive would make every message a tenant of its own.
		e.MessageGroupId = aws.String(group)
	}
	return e
}

// bySize splits msgs into batches of at most ten that stay under limit
// bytes (batchBytes); a message bigger than that goes alone.
func bySize(msgs []sqsjson.Message, limit int) [][]sqsjson.Message {
	var out [][]sqsjson.Message
	var cur []sqsjson.Message
	size := 0
	for _, msg := range msgs {
		n := len(msg.Body)
		for k, v := range msg.MessageAttributes {
			n += len(k) + len(v.DataType) + len(aws.ToString(v.StringValue)) + len(v.BinaryValue)
		}
		if len(cur) == batchSize || (len(cur) > 0 && size+n > limit) {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, msg)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
