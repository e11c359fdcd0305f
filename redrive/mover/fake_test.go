package mover

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// fakeSQS is an in-memory SQS for the mover's own logic; the real SDK
// paths are tested against moto in cmd.
type fakeSQS struct {
	mu     sync.Mutex
	queues map[string][]*fakeMsg
	next   int
	// beforeDelete runs at every DeleteMessageBatch, before it acts.
	beforeDelete func(in *sqs.DeleteMessageBatchInput)
	// sendFault returns a per-entry failure for a body, or nil.
	sendFault func(body string) *types.BatchResultErrorEntry
	sends     int
	// staleDeletes answers success to this many delete entries without
	// deleting, as SQS does for a receipt handle that is no longer the
	// latest.
	staleDeletes int
	// longPoll makes a receive with WaitTimeSeconds wait for a message as
	// SQS does. A cancelled poll goes on at the server until its wait ends,
	// as SQS's does, and hides what it takes there (ghosted counts them).
	longPoll                      bool
	fullWaits, cancelled, ghosted int
	// loseReceive and loseSend, when set and true for a call, lose its
	// answer after the call acted (a dropped connection, a 5xx after the
	// fact): the receive's messages stay hidden, the send's are sent.
	loseReceive func(out *sqs.ReceiveMessageOutput) bool
	loseSend    func() bool
	// failDelete, when set and true for a call, fails it before it acts.
	failDelete func() bool
}

// errLost is an answer lost after the server acted; Retryable takes it
// for the broken connection it stands for.
var errLost = errors.New("read: connection reset by peer (the server acted)")

// lose tells whether the answer of a call that acted is lost.
func (f *fakeSQS) lose(out *sqs.ReceiveMessageOutput) bool {
	f.mu.Lock()
	lose := f.loseReceive
	f.mu.Unlock()
	return lose != nil && len(out.Messages) > 0 && lose(out)
}

type fakeMsg struct {
	id, body, receipt string
	attrs             map[string]types.MessageAttributeValue
	sys               map[string]string
	hiddenUntil       time.Time
}

func newFake() *fakeSQS { return &fakeSQS{queues: map[string][]*fakeMsg{}} }

func (f *fakeSQS) put(url, body string, attrs map[string]types.MessageAttributeValue) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	id := fmt.Sprintf("id-%04d", f.next)
	f.queues[url] = append(f.queues[url], &fakeMsg{id: id, body: body, attrs: attrs, sys: map[string]string{"SentTimestamp": strconv.FormatInt(time.Now().UnixMilli(), 10)}})
	return id
}

func (f *fakeSQS) bodies(url string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.queues[url] {
		out = append(out, m.body)
	}
	return out
}

func (f *fakeSQS) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	if !f.longPoll || in.WaitTimeSeconds == 0 {
		if out := f.take(in); !f.lose(out) {
			return out, nil
		}
		return nil, errLost
	}
	deadline := time.Now().Add(time.Duration(in.WaitTimeSeconds) * time.Second)
	for {
		if out := f.take(in); len(out.Messages) > 0 {
			if f.lose(out) {
				return nil, errLost
			}
			return out, nil
		}
		select {
		case <-ctx.Done():
			f.mu.Lock()
			f.cancelled++
			f.mu.Unlock()
			go f.ghost(in, deadline)
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			f.mu.Lock()
			f.fullWaits++
			f.mu.Unlock()
			return &sqs.ReceiveMessageOutput{}, nil
		}
	}
}

// ghost is a cancelled long poll going on at the server: what it takes is
// hidden with a receipt handle no one holds.
func (f *fakeSQS) ghost(in *sqs.ReceiveMessageInput, deadline time.Time) {
	for time.Now().Before(deadline) {
		if out := f.take(in); len(out.Messages) > 0 {
			f.mu.Lock()
			f.ghosted += len(out.Messages)
			f.mu.Unlock()
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// take receives what is visible now.
func (f *fakeSQS) take(in *sqs.ReceiveMessageInput) *sqs.ReceiveMessageOutput {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &sqs.ReceiveMessageOutput{}
	now := time.Now()
	for _, m := range f.queues[*in.QueueUrl] {
		if len(out.Messages) == int(in.MaxNumberOfMessages) {
			break
		}
		if now.Before(m.hiddenUntil) {
			continue
		}
		f.next++
		m.receipt = "rh-" + strconv.Itoa(f.next)
		m.hiddenUntil = now.Add(time.Duration(in.VisibilityTimeout) * time.Second)
		out.Messages = append(out.Messages, types.Message{MessageId: aws.String(m.id), Body: aws.String(m.body), ReceiptHandle: aws.String(m.receipt), MessageAttributes: m.attrs, Attributes: sysAsked(m.sys, in.MessageSystemAttributeNames)})
	}
	return out
}

// sysAsked keeps the system attributes a receive asked for, as SQS does.
func sysAsked(sys map[string]string, names []types.MessageSystemAttributeName) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		for k, v := range sys {
			if n == types.MessageSystemAttributeNameAll || string(n) == k {
				out[k] = v
			}
		}
	}
	return out
}

func (f *fakeSQS) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (out *sqs.SendMessageBatchOutput, err error) {
	out = &sqs.SendMessageBatchOutput{}
	f.mu.Lock()
	f.sends++
	fault, lose := f.sendFault, f.loseSend
	f.mu.Unlock()
	if lose != nil && lose() {
		defer func() { out, err = nil, errLost }()
	}
	for _, e := range in.Entries {
		if fault != nil {
			if fe := fault(*e.MessageBody); fe != nil {
				fe.Id = e.Id
				out.Failed = append(out.Failed, *fe)
				continue
			}
		}
		id := f.put(*in.QueueUrl, *e.MessageBody, e.MessageAttributes)
		out.Successful = append(out.Successful, types.SendMessageBatchResultEntry{Id: e.Id, MessageId: aws.String(id)})
	}
	return out, nil
}

func (f *fakeSQS) DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	if f.beforeDelete != nil {
		f.beforeDelete(in)
	}
	if f.failDelete != nil && f.failDelete() {
		return nil, errLost
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &sqs.DeleteMessageBatchOutput{}
	for _, e := range in.Entries {
		if f.staleDeletes > 0 {
			f.staleDeletes--
			out.Successful = append(out.Successful, types.DeleteMessageBatchResultEntry{Id: e.Id})
			continue
		}
		q := f.queues[*in.QueueUrl]
		found := false
		for i, m := range q {
			if m.receipt == *e.ReceiptHandle {
				f.queues[*in.QueueUrl] = append(q[:i], q[i+1:]...)
				found = true
				break
			}
		}
		if found {
			out.Successful = append(out.Successful, types.DeleteMessageBatchResultEntry{Id: e.Id})
		} else {
			out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, SenderFault: true, Code: aws.String("ReceiptHandleIsInvalid")})
		}
	}
	return out, nil
}

func (f *fakeSQS) ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &sqs.ChangeMessageVisibilityBatchOutput{}
	for _, e := range in.Entries {
		found := false
		for _, m := range f.queues[*in.QueueUrl] {
			if m.receipt == *e.ReceiptHandle {
				m.hiddenUntil = time.Now().Add(time.Duration(e.VisibilityTimeout) * time.Second)
				found = true
			}
		}
		if !found {
			// A handle that is not the message's latest (a later receive
			// took it again), as moto and SQS refuse it.
			out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("ReceiptHandleIsInvalid"), SenderFault: true})
		}
	}
	return out, nil
}

func (f *fakeSQS) GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, _ ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	vis, hid := 0, 0
	for _, m := range f.queues[*in.QueueUrl] {
		if time.Now().Before(m.hiddenUntil) {
			hid++
		} else {
			vis++
		}
	}
	return &sqs.GetQueueAttributesOutput{Attributes: map[string]string{
		"ApproximateNumberOfMessages": strconv.Itoa(vis), "ApproximateNumberOfMessagesNotVisible": strconv.Itoa(hid), "ApproximateNumberOfMessagesDelayed": "0",
	}}, nil
}

// setSys sets a system attribute of message id in url (as SQS sets
// DeadLetterQueueSourceArn on a message its redrive policy moved).
func (f *fakeSQS) setSys(url, id, name, value string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.queues[url] {
		if m.id == id {
			m.sys[name] = value
		}
	}
}
