package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/receipts"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Passthrough is the SQS a Source forwards every call about another queue
// to (the redrive's destination), with the SDK's signatures.
type Passthrough interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

// Source serves an export's messages to the redrive mover as if the file
// were the DLQ: ReceiveMessage hands out the next messages with a receipt
// handle and a visibility timeout, DeleteMessageBatch marks them done,
// ChangeMessageVisibilityBatch hands them back, GetQueueAttributes counts
// what is left. Every call naming another queue (the destination) goes to
// the real SQS. So the mover's journal, resume, rate, canary, selection,
// FIFO group and deduplication id work unchanged, keyed on the file's
// MessageIds; nothing in the file changes.
type Source struct {
	URL  string
	next Passthrough
	// Clock times the holds it hands out (nil: the wall clock), the same
	// clock the mover reading it runs on.
	Clock receipts.Clock

	mu       sync.Mutex
	rd       *sqsjson.Reader
	eof      bool
	back     []sqsjson.Message       // handed back: served before the file's next
	held     map[string]*heldMessage // MessageId → a message out with the mover
	done     map[string]bool         // deleted by the mover, or done before
	left     int                     // messages not done
	gen      int                     // receipt handle generation
	byHandle map[string]string       // receipt handle → MessageId
}

type heldMessage struct {
	msg    sqsjson.Message
	until  time.Time
	handle string
}

func (s *Source) clock() receipts.Clock {
	if s.Clock == nil {
		return receipts.System
	}
	return s.Clock
}

// SourceURL is the pseudo queue URL of an export file.
func SourceURL(name string) string { return "file://" + strings.TrimPrefix(name, "file://") }

// NewSource serves f's messages, leaving out those skip says an earlier
// run finished (sent and deleted).
func NewSource(f *File, next Passthrough, skip func(id string) bool) (*Source, error) {
	s := &Source{URL: SourceURL(f.Name), next: next, held: map[string]*heldMessage{}, done: map[string]bool{},
		byHandle: map[string]string{}}
	rd, err := f.Messages()
	if err != nil {
		return nil, err
	}
	for {
		m, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if skip != nil && skip(m.MessageId) {
			s.done[m.MessageId] = true
		} else {
			s.left++
		}
	}
	if s.rd, err = f.Messages(); err != nil {
		return nil, err
	}
	return s, nil
}

// Left is how many messages are not done.
func (s *Source) Left() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.left
}

// ReceiveMessage hands out up to MaxNumberOfMessages messages: those whose
// hold ran out or that were handed back first, then the file's next.
func (s *Source) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	if aws.ToString(in.QueueUrl) != s.URL {
		return s.next.ReceiveMessage(ctx, in, optFns...)
	}
	out := &sqs.ReceiveMessageOutput{}
	for attempt := 0; ; attempt++ {
		msgs, err := s.take(max(int(in.MaxNumberOfMessages), 1), time.Duration(in.VisibilityTimeout)*time.Second)
		if err != nil {
			return nil, err
		}
		if len(msgs) > 0 || in.WaitTimeSeconds == 0 || attempt >= 4 {
			out.Messages = msgs
			return out, nil
		}
		// A long poll: what is out with the mover may come back.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.clock().After(100 * time.Millisecond):
		}
	}
}

func (s *Source) take(n int, visibility time.Duration) ([]types.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock().Now()
	var got []sqsjson.Message
	for id, h := range s.held {
		if len(got) < n && now.After(h.until) {
			delete(s.byHandle, h.handle)
			delete(s.held, id)
			got = append(got, h.msg)
		}
	}
	for len(got) < n && len(s.back) > 0 {
		got, s.back = append(got, s.back[0]), s.back[1:]
	}
	for len(got) < n && !s.eof {
		m, err := s.rd.Next()
		if errors.Is(err, io.EOF) {
			s.eof = true
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", s.URL, err)
		}
		if !s.done[m.MessageId] {
			got = append(got, *m)
		}
	}
	out := make([]types.Message, len(got))
	for i, m := range got {
		s.gen++
		h := m.MessageId + "#" + strconv.Itoa(s.gen)
		s.held[m.MessageId] = &heldMessage{msg: m, until: now.Add(visibility), handle: h}
		s.byHandle[h] = m.MessageId
		out[i] = toSDK(m, h)
	}
	return out, nil
}

// DeleteMessageBatch marks messages done: the mover deletes only what it
// has sent and journaled. A handle that is no longer current is refused,
// as SQS would.
func (s *Source) DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	if aws.ToString(in.QueueUrl) != s.URL {
		return s.next.DeleteMessageBatch(ctx, in, optFns...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &sqs.DeleteMessageBatchOutput{}
	for _, e := range in.Entries {
		id, ok := s.byHandle[aws.ToString(e.ReceiptHandle)]
		if !ok {
			out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("ReceiptHandleIsInvalid"), Message: aws.String("not a current receipt handle"), SenderFault: true})
			continue
		}
		delete(s.byHandle, aws.ToString(e.ReceiptHandle))
		delete(s.held, id)
		if !s.done[id] {
			s.done[id] = true
			s.left--
		}
		out.Successful = append(out.Successful, types.DeleteMessageBatchResultEntry{Id: e.Id})
	}
	return out, nil
}

// ChangeMessageVisibilityBatch hands messages back (0) or holds them
// longer.
func (s *Source) ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	if aws.ToString(in.QueueUrl) != s.URL {
		return s.next.ChangeMessageVisibilityBatch(ctx, in, optFns...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &sqs.ChangeMessageVisibilityBatchOutput{}
	for _, e := range in.Entries {
		id, ok := s.byHandle[aws.ToString(e.ReceiptHandle)]
		if !ok {
			out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("ReceiptHandleIsInvalid"), Message: aws.String("not a current receipt handle"), SenderFault: true})
			continue
		}
		h := s.held[id]
		if e.VisibilityTimeout == 0 {
			delete(s.byHandle, h.handle)
			delete(s.held, id)
			s.back = append(s.back, h.msg)
		} else {
			h.until = s.clock().Now().Add(time.Duration(e.VisibilityTimeout) * time.Second)
		}
		out.Successful = append(out.Successful, types.ChangeMessageVisibilityBatchResultEntry{Id: e.Id})
	}
	return out, nil
}

// GetQueueAttributes counts what is left: out with the mover as in
// flight, the rest as visible.
func (s *Source) GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	if aws.ToString(in.QueueUrl) != s.URL {
		return s.next.GetQueueAttributes(ctx, in, optFns...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return &sqs.GetQueueAttributesOutput{Attributes: map[string]string{
		"ApproximateNumberOfMessages":           strconv.Itoa(s.left - len(s.held)),
		"ApproximateNumberOfMessagesNotVisible": strconv.Itoa(len(s.held)),
		"ApproximateNumberOfMessagesDelayed":    "0",
	}}, nil
}

// SendMessageBatch always goes to SQS: a file is never a destination.
func (s *Source) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	return s.next.SendMessageBatch(ctx, in, optFns...)
}

// toSDK is the message as ReceiveMessage would return it, with handle.
func toSDK(m sqsjson.Message, handle string) types.Message {
	out := types.Message{
		MessageId: aws.String(m.MessageId), ReceiptHandle: aws.String(handle), Body: aws.String(m.Body),
		MD5OfBody: aws.String(m.MD5OfBody), Attributes: map[string]string{},
	}
	for k, v := range m.Attributes {
		out.Attributes[k] = v
	}
	if len(m.MessageAttributes) > 0 {
		out.MessageAttributes = map[string]types.MessageAttributeValue{}
		for k, v := range m.MessageAttributes {
			out.MessageAttributes[k] = types.MessageAttributeValue{DataType: aws.String(v.DataType), StringValue: v.StringValue, BinaryValue: v.BinaryValue}
		}
	}
	return out
}
