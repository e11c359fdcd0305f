package redrive

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// AttrDeadLetterQueueSourceArn is the message system attribute SQS sets on
// a message its redrive policy moved into a DLQ: the ARN of the queue it
// came from. A message sent to the DLQ directly, or moved by an older SQS,
// has none.
const AttrDeadLetterQueueSourceArn = "DeadLetterQueueSourceArn"

// SourceARNOf is the queue a DLQ message came from ("" when unknown).
func SourceARNOf(m *sqsjson.Message) string { return m.Attributes[AttrDeadLetterQueueSourceArn] }

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
	seen := map[string]bool{}
	defer func() { releaseSample(env, dlq, s.msgs) }()
	for len(s.msgs) < sharedSample {
		out, err := env.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlq.URL), MaxNumberOfMessages: int32(min(10, sharedSample-len(s.msgs))),
			VisibilityTimeout: 1, MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}, MessageAttributeNames: []string{"All"}})
		if err != nil {
			return s, fmt.Errorf("look at %s's messages for their source queues: %w", dlq.Name, err)
		}
		fresh := 0
		for _, m := range out.Messages {
			if msg := sqsapi.FromSDK(m); !seen[msg.MessageId] {
				seen[msg.MessageId] = true
				s.msgs = append(s.msgs, msg)
				fresh++
			}
		}
		if fresh == 0 {
			break
		}
	}
	s.count(nil)
	return s, nil
}

// releaseSample makes the sampled messages visible again (best effort: a
// miss is visible again after its second).
func releaseSample(env *Env, dlq *sqsapi.Queue, msgs []sqsjson.Message) {
	for start := 0; start < len(msgs); start += 10 {
		chunk := msgs[start:min(start+10, len(msgs))]
		entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(chunk))
		for i := range chunk {
			entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(chunk[i].ReceiptHandle)}
		}
		_, _ = env.SQS.ChangeMessageVisibilityBatch(context.Background(), &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(dlq.URL), Entries: entries})
	}
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
		if arn := SourceARNOf(&s.msgs[i]); arn != "" {
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
			return nil, &Refusal{Reason: fmt.Sprintf("%s of %s came from %s, which mfdlq cannot resolve (%v): move them with --to QUEUE and a --filter on .Attributes.%s", plural.Of(sample.Shares[arn], "message"), dlq.Name, untrusted.Terminal(arn), err, AttrDeadLetterQueueSourceArn)}
		case err != nil:
			return nil, fmt.Errorf("source queue %s: %w", arnName(arn), err)
		}
		byARN[arn] = q
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, notFoundf("%s: source queue %s no longer exists: recreate it, or move its messages with --to QUEUE --force and a --filter on .Attributes.%s; nothing was moved",
			dlq.Name, strings.Join(missing, ", "), AttrDeadLetterQueueSourceArn)
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
	wait := CanaryWait(p.Dests[0].Queue, dlq)
	for _, d := range p.Dests[1:] {
		wait = max(wait, CanaryWait(d.Queue, dlq))
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
		p.Source.Queue.Name, n, p.Sample.Looked, dest.Name, strings.Join(others, ", "), AttrDeadLetterQueueSourceArn, dest.ARN, dest.Name)}
	if err := refuse(env, p.Req, r); err != nil {
		return err
	}
	p.Narrow = false // --force: every selected message goes to dest
	return nil
}

// SharedLines say, for the plan, where a shared DLQ's messages go: each
// source with its share of the sample, the messages without a source, and
// with --to what happens to the other sources' messages. None for a DLQ
// of one source.
func (p *Plan) SharedLines() []string {
	s := p.Sample
	var out []string
	switch {
	case p.PerSource:
		out = append(out, fmt.Sprintf("shared DLQ: each message back to its own source queue (its %s), %s:", AttrDeadLetterQueueSourceArn, plural.Of(len(p.Dests), "destination")))
		for _, d := range p.Dests {
			out = append(out, fmt.Sprintf("  → %s: %d of %d looked at", d.Queue.Name, d.Share, s.Looked))
		}
		if p.Canary > 0 {
			out = append(out, fmt.Sprintf("canary per destination: up to %d to each first, the rest only if none of any comes back", p.Canary))
		}
		if s.Sourceless > 0 {
			out = append(out, fmt.Sprintf("%d of %d looked at carry no %s: they stay in the DLQ; move them with --to QUEUE", s.Sourceless, s.Looked, AttrDeadLetterQueueSourceArn))
		}
		if p.Req.Native {
			out = append(out, "--native: SQS's move task starts without a destination and returns each message to its own source queue; a message without a source fails the task")
		}
	case p.Narrow && p.Req.Native:
		out = append(out, fmt.Sprintf("shared DLQ: SQS's move task sends every message to %s, whatever its source; the sample showed none from another queue", p.Dest().Queue.Name))
	case p.Narrow:
		out = append(out, fmt.Sprintf("shared DLQ: only messages that came from %s (or carry no source) go to it; the others stay in the DLQ (--force sends them too)", p.Dest().Queue.Name))
	}
	return out
}

// DestText names where the messages go, for the line naming account and
// region: the one destination, or the shared DLQ's source queues.
func (p *Plan) DestText() string {
	if !p.PerSource {
		return p.Dest().Text()
	}
	return "each message's own source queue: " + p.destNames()
}

// destNames lists the destinations' names.
func (p *Plan) destNames() string {
	names := make([]string, len(p.Dests))
	for i, d := range p.Dests {
		names[i] = d.Queue.Name
	}
	return strings.Join(names, ", ")
}

// DestName is the destination in a sentence: a queue's name, or "their
// source queues".
func (p *Plan) DestName() string {
	if p.PerSource {
		return "their own source queues"
	}
	return p.Dest().Queue.Name
}

// canaryText says how a canary per destination went: "3 to orders, 3 to
// payments" (a destination none reached is named with 0).
func canaryText(p *Plan, st Stats) string {
	parts := make([]string, len(p.Dests))
	for i, d := range p.Dests {
		parts[i] = fmt.Sprintf("%d to %s", st.Dests[d.Queue.URL].Moved, d.Queue.Name)
	}
	return strings.Join(parts, ", ")
}

// backText names, for a canary that came back, how many came back from
// each destination: the consumer whose fix is not the right one.
func backText(p *Plan, by map[string]int) []string {
	if !p.PerSource {
		return nil
	}
	var out []string
	for _, d := range p.Dests {
		if n := by[d.SourceARN]; n > 0 {
			out = append(out, fmt.Sprintf("%s came back from %s: its consumer still fails them", plural.Of(n, "message"), d.Queue.Name))
		}
	}
	return out
}

// destFigures are a routed move's figures per destination, in the plan's
// order (none for a move to one destination).
func destFigures(p *Plan, st Stats) []DestFigures {
	if !p.PerSource {
		return nil
	}
	out := make([]DestFigures, len(p.Dests))
	for i, d := range p.Dests {
		ds := st.Dests[d.Queue.URL]
		out[i] = DestFigures{Queue: d.Queue.Name, URL: d.Queue.URL, Moved: ds.Moved, Failed: ds.Failed, Consumers: d.Consumers}
	}
	return out
}

// DestLines say a routed move's outcome per destination, and what stayed
// in the DLQ and how to move it; none for a move to one destination.
func (s *Summary) DestLines(p *Plan) []string {
	var out []string
	for _, d := range destFigures(p, s.Stats) {
		out = append(out, fmt.Sprintf("→ %s: %d moved, %d failed", d.Queue, d.Moved, d.Failed))
	}
	if s.Sourceless > 0 {
		out = append(out, fmt.Sprintf("%s without a %s stayed in the DLQ: move them with --to QUEUE", plural.Of(s.Sourceless, "message"), AttrDeadLetterQueueSourceArn))
	}
	switch {
	case s.OtherSource > 0 && p.PerSource:
		out = append(out, fmt.Sprintf("%s from queues the plan did not list stayed in the DLQ: run the same command again to plan for them", plural.Of(s.OtherSource, "message")))
	case s.OtherSource > 0:
		out = append(out, fmt.Sprintf("%s from other queues than %s stayed in the DLQ: run without --to to send each back to its own source", plural.Of(s.OtherSource, "message"), p.Dest().Queue.Name))
	}
	return out
}

// AtLeastOnce is the warning every move gives: a message can arrive twice.
func (p *Plan) AtLeastOnce() string {
	if p.PerSource {
		return "redrive is at least once: a message can reach its source queue twice, so each consumer must be idempotent"
	}
	return fmt.Sprintf("redrive is at least once: a message can reach %s twice, so its consumer must be idempotent", p.Dest().Queue.Name)
}
