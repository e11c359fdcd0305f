// Package sample is the harmless look at a DLQ's messages before a
// redrive: up to fifty, each hidden one second and made visible again at
// once, counted by the source queue they failed out of. redrive's plan
// reads a shared DLQ's shares from it and the idempotency window the
// messages' ages; it never imports redrive.
package sample

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// API is what the look calls, with the SDK's signatures: sqsapi.Client
// satisfies it as it is.
type API interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
}

var _ API = (sqsapi.Client)(nil)

// sharedSample is how many messages the look at a DLQ's sources peeks at:
// enough to show each source's share, few enough to stay harmless (each is
// hidden one second, never deleted) and far below the in-flight limit.
const sharedSample = 50

// Sources is what the harmless look at a DLQ's messages showed: how
// many came from each source queue (by ARN) and how many carry no source.
// The counts of the whole backlog come as the move goes: reading every
// message first would collide with the in-flight limit.
type Sources struct {
	Looked     int
	Sourceless int
	Shares     map[string]int // source queue ARN → messages looked at
	msgs       []sqsjson.Message
}

// Take looks at up to sharedSample of dlq's messages and leaves
// no trace but their receive counts: short polls (a sample needs no
// completeness, and a long poll's quiet rounds would add seconds to every
// redrive), each message hidden one second and made visible again at once.
func Take(ctx context.Context, c API, dlq *sqsapi.Queue) (Sources, error) {
	if dlq.Depth.Visible == 0 {
		return Of(nil), nil
	}
	// The short polls go out at once: one round trip, not one per ten
	// messages, before every redrive of a DLQ that has a source queue.
	calls := (sharedSample + 9) / 10
	got := make([][]types.Message, calls)
	errs := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlq.URL), MaxNumberOfMessages: int32(min(10, sharedSample-10*i)),
				VisibilityTimeout: 1, MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}, MessageAttributeNames: []string{"All"}})
			if err == nil {
				got[i] = out.Messages
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	var msgs []sqsjson.Message
	for _, ms := range got {
		for _, m := range ms {
			if msg := sqsapi.FromSDK(m); !seen[msg.MessageId] {
				seen[msg.MessageId] = true
				msgs = append(msgs, msg)
			}
		}
	}
	release(c, dlq, msgs)
	if err := errors.Join(errs...); err != nil {
		return Sources{}, fmt.Errorf("look at %s's messages for their source queues: %w", dlq.Name, err)
	}
	return Of(msgs), nil
}

// release makes the sampled messages visible again, all batches at
// once (best effort: a miss is visible again after its second).
func release(c API, dlq *sqsapi.Queue, msgs []sqsjson.Message) {
	var wg sync.WaitGroup
	for start := 0; start < len(msgs); start += 10 {
		chunk := msgs[start:min(start+10, len(msgs))]
		entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(chunk))
		for i := range chunk {
			entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(chunk[i].ReceiptHandle)}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = c.ChangeMessageVisibilityBatch(context.Background(), &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(dlq.URL), Entries: entries})
		}()
	}
	wg.Wait()
}

// Count tallies the sample's messages that sel picks (all when nil); a
// message the selection fails on is not counted.
func (s *Sources) Count(sel func(*sqsjson.Message) (bool, error)) {
	s.Looked, s.Sourceless, s.Shares = 0, 0, map[string]int{}
	for i := range s.msgs {
		if sel != nil {
			if ok, err := sel(&s.msgs[i]); !ok || err != nil {
				continue
			}
		}
		s.Looked++
		if arn := s.msgs[i].SourceARN(); arn != "" {
			s.Shares[arn]++
		} else {
			s.Sourceless++
		}
	}
}

// Others are the sample's sources other than arn, "name N" each, and how
// many messages they hold.
func (s *Sources) Others(arn string) ([]string, int) {
	var out []string
	n := 0
	for a, c := range s.Shares {
		if a != arn {
			out = append(out, fmt.Sprintf("%s %d", QueueName(a), c))
			n += c
		}
	}
	sort.Strings(out)
	return out, n
}

// Of is a sample of msgs, counted as Take counts it.
func Of(msgs []sqsjson.Message) Sources {
	s := Sources{msgs: msgs}
	s.Count(nil)
	return s
}

// Messages are the messages the look saw.
func (s *Sources) Messages() []sqsjson.Message { return s.msgs }

// QueueName is the queue name of an ARN, sanitised: the ARN is a message's
// attribute, data that reaches a terminal.
func QueueName(arn string) string {
	name := arn
	if a, err := awsarn.Parse(arn); err == nil && a.Resource != "" {
		name = a.Resource
	}
	return untrusted.Shorten(untrusted.Terminal(name), 120)
}
