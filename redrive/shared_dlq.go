package redrive

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/canary"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// sharedSample is how many messages the look at a DLQ's sources peeks at:
// enough to show each source's share, few enough to stay harmless (each is
// hidden one second, never deleted) and far below the in-flight limit.
const sharedSample = 50

// SourceSample is what the harmless look at a DLQ's messages showed: how
// many came from each source queue (by ARN) and how many carry no source.
// The counts of the whole backlog come as the move goes: reading every
// message first would collide with the in-flight limit.
type SourceSample struct {
	Looked     int
	Sourceless int
	Shares     map[string]int // source queue ARN → messages looked at
	msgs       []sqsjson.Message
}

// sampleSources looks at up to sharedSample of dlq's messages and leaves
// no trace but their receive counts: short polls (a sample needs no
// completeness, and a long poll's quiet rounds would add seconds to every
// redrive), each message hidden one second and made visible again at once.
func sampleSources(ctx context.Context, env *Env, dlq *sqsapi.Queue) (SourceSample, error) {
	s := SourceSample{Shares: map[string]int{}}
	if dlq.Depth.Visible == 0 {
		return s, nil
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
			out, err := env.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlq.URL), MaxNumberOfMessages: int32(min(10, sharedSample-10*i)),
				VisibilityTimeout: 1, MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}, MessageAttributeNames: []string{"All"}})
			if err == nil {
				got[i] = out.Messages
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, ms := range got {
		for _, m := range ms {
			if msg := sqsapi.FromSDK(m); !seen[msg.MessageId] {
				seen[msg.MessageId] = true
				s.msgs = append(s.msgs, msg)
			}
		}
	}
	releaseSample(env, dlq, s.msgs)
	if err := errors.Join(errs...); err != nil {
		return s, fmt.Errorf("look at %s's messages for their source queues: %w", dlq.Name, err)
	}
	s.count(nil)
	return s, nil
}

// releaseSample makes the sampled messages visible again, all batches at
// once (best effort: a miss is visible again after its second).
func releaseSample(env *Env, dlq *sqsapi.Queue, msgs []sqsjson.Message) {
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
			_, _ = env.SQS.ChangeMessageVisibilityBatch(context.Background(), &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(dlq.URL), Entries: entries})
		}()
	}
	wg.Wait()
}

// count tallies the sample's messages that sel picks (all when nil); a
// message the selection fails on is not counted.
func (s *SourceSample) count(sel func(*sqsjson.Message) (bool, error)) {
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

// others are the sample's sources other than arn, "name N" each, and how
// many messages they hold.
func (s *SourceSample) others(arn string) ([]string, int) {
	var out []string
	n := 0
	for a, c := range s.Shares {
		if a != arn {
			out = append(out, fmt.Sprintf("%s %d", arnName(a), c))
			n += c
		}
	}
	sort.Strings(out)
	return out, n
}

// arnName is the queue name of an ARN, sanitised: the ARN is a message's
// attribute, data that reaches a terminal.
func arnName(arn string) string {
	name := arn
	if a, err := awsarn.Parse(arn); err == nil && a.Resource != "" {
		name = a.Resource
	}
	return untrusted.Shorten(untrusted.Terminal(name), 120)
}

// resolveShared is the plan of a DLQ shared by several queues moved
// without --to: one destination per source queue, from the redrive
// policies that name the DLQ and the sources the sample shows. A source
// that no longer exists is not found (exit 5), one that cannot be resolved
// (another region, a malformed ARN) refused: the plan never guesses where
// a message goes.
func resolveShared(ctx context.Context, env *Env, req Request, dlq *sqsapi.Queue, sources []*sqsapi.Queue, sample SourceSample) (*Plan, error) {
	byARN := map[string]*sqsapi.Queue{}
	for _, q := range sources {
		byARN[q.ARN] = q
	}
	var missing []string
	for arn := range sample.Shares {
		if byARN[arn] != nil {
			continue
		}
		q, err := sqsapi.Resolve(ctx, env.SQS, arn, env.Region)
		var bad *sqsapi.InvalidQueueRefError
		switch {
		case errors.Is(err, sqsapi.ErrQueueNotFound):
			missing = append(missing, fmt.Sprintf("%s (%s, %s)", arnName(arn), untrusted.Terminal(arn), plural.Of(sample.Shares[arn], "message")))
			continue
		case errors.As(err, &bad):
			return nil, &Refusal{Reason: fmt.Sprintf("%s of %s came from %s, which mfdlq cannot resolve (%v): move them with --to QUEUE and a --filter on .Attributes.%s", plural.Of(sample.Shares[arn], "message"), dlq.Name, untrusted.Terminal(arn), err, sqsjson.AttrDeadLetterQueueSourceArn)}
		case err != nil:
			return nil, fmt.Errorf("source queue %s: %w", arnName(arn), err)
		}
		byARN[arn] = q
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, notFoundf("%s: source queue %s no longer exists: recreate it, or move its messages with --to QUEUE --force and a --filter on .Attributes.%s; nothing was moved",
			dlq.Name, strings.Join(missing, ", "), sqsjson.AttrDeadLetterQueueSourceArn)
	}
	p := &Plan{Req: req, Source: Source{Queue: dlq}, PerSource: true, Sample: sample, Backlog: int(dlq.Depth.Total()), Workers: req.workers()}
	arns := make([]string, 0, len(byARN))
	for arn := range byARN {
		arns = append(arns, arn)
	}
	sort.Strings(arns)
	for _, arn := range arns {
		q := byARN[arn]
		if err := checkDest(q, dlq); err != nil {
			return nil, err
		}
		p.Dests = append(p.Dests, Destination{Queue: q, SourceARN: arn, Share: sample.Shares[arn]})
	}
	wait := canary.Wait(p.Dests[0].Queue, dlq)
	for _, d := range p.Dests[1:] {
		wait = max(wait, canary.Wait(d.Queue, dlq))
	}
	// Every destination is the messages' own source: a canary by default.
	p.sizeCanary(!req.Native, wait)
	return p, nil
}

// checkDest refuses a destination that is the DLQ itself or of the other
// type (FIFO and standard).
func checkDest(dest, dlq *sqsapi.Queue) error {
	switch {
	case sqsapi.SameQueue(dest, dlq):
		return usagef("the destination %s is the DLQ itself (%s): pass --to with another queue", dest.Name, orUnknown(dlq.ARN))
	case dest.FIFO != dlq.FIFO:
		return usagef("%s and %s are not of the same type (FIFO and standard): pick a destination of the DLQ's type", dlq.Name, dest.Name)
	}
	return nil
}

// isShared tells whether dlq's messages come from more than one queue:
// the redrive policies naming it and the sources its sample shows.
func isShared(sources []*sqsapi.Queue, sample SourceSample) bool {
	arns := map[string]bool{}
	for _, q := range sources {
		arns[q.ARN] = true
	}
	for arn := range sample.Shares {
		arns[arn] = true
	}
	return len(arns) > 1
}

// checkNarrowed counts the sample under the selection and refuses --to Q on a shared DLQ when the selected messages
// of the sample came from other queues too, naming them and their counts,
// unless --force; it runs once the selection can be compiled (Guard). At
// move time a message from another queue stays in the DLQ (Plan.Narrow)
// unless --force: the sample cannot prove the backlog has none.
func checkNarrowed(env *Env, p *Plan) error {
	if !p.Narrow && !p.PerSource {
		return nil
	}
	if p.Req.Selector != nil {
		sel, err := p.Req.Selector()
		if err != nil {
			return err
		}
		p.Sample.count(sel)
		for i := range p.Dests {
			p.Dests[i].Share = p.Sample.Shares[p.Dests[i].SourceARN]
		}
	}
	if p.PerSource {
		return nil
	}
	dest := p.Dest().Queue
	others, n := p.Sample.others(dest.ARN)
	if n == 0 {
		// --force: the operator named the queue for every selected message.
		p.Narrow = !p.Req.Force
		return nil
	}
	r := &Refusal{Reason: fmt.Sprintf("%s is shared: %d of the %d selected messages looked at came from other queues than %s (%s); never into a stranger's queue: drop --to to send each back to its own source, narrow with --group or --filter '.Attributes.%s == \"%s\"', or --force to send them all to %s",
		p.Source.Queue.Name, n, p.Sample.Looked, dest.Name, strings.Join(others, ", "), sqsjson.AttrDeadLetterQueueSourceArn, dest.ARN, dest.Name)}
	if err := refuse(env, p.Req, r); err != nil {
		return err
	}
	p.Narrow = false // --force: every selected message goes to dest
	return nil
}
