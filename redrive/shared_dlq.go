package redrive

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/canary"
	"github.com/mfdlq/mfdlq/redrive/sample"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// arnName is the queue name of an ARN, sanitised (sample.QueueName).
func arnName(arn string) string { return sample.QueueName(arn) }

// resolveShared is the plan of a DLQ shared by several queues moved
// without --to: one destination per source queue, from the redrive
// policies that name the DLQ and the sources the sample shows. A source
// that no longer exists is not found (exit 5), one that cannot be resolved
// (another region, a malformed ARN) refused: the plan never guesses where
// a message goes.
func resolveShared(ctx context.Context, env *Env, req Request, dlq *sqsapi.Queue, sources []*sqsapi.Queue, smp sample.Sources) (*Plan, error) {
	byARN := map[string]*sqsapi.Queue{}
	for _, q := range sources {
		byARN[q.ARN] = q
	}
	var missing []string
	for arn := range smp.Shares {
		if byARN[arn] != nil {
			continue
		}
		q, err := sqsapi.Resolve(ctx, env.SQS, arn, env.Region)
		var bad *sqsapi.InvalidQueueRefError
		switch {
		case errors.Is(err, sqsapi.ErrQueueNotFound):
			missing = append(missing, fmt.Sprintf("%s (%s, %s)", arnName(arn), untrusted.Terminal(arn), plural.Of(smp.Shares[arn], "message")))
			continue
		case errors.As(err, &bad):
			return nil, &Refusal{Reason: fmt.Sprintf("%s of %s came from %s, which mfdlq cannot resolve (%v): move them with --to QUEUE and a --filter on .Attributes.%s", plural.Of(smp.Shares[arn], "message"), dlq.Name, untrusted.Terminal(arn), err, sqsjson.AttrDeadLetterQueueSourceArn)}
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
	p := &Plan{Req: req, Source: Source{Queue: dlq}, PerSource: true, Sample: smp, Backlog: int(dlq.Depth.Total()), Workers: req.workers()}
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
		p.Dests = append(p.Dests, Destination{Queue: q, SourceARN: arn, Share: smp.Shares[arn]})
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
func isShared(sources []*sqsapi.Queue, smp sample.Sources) bool {
	arns := map[string]bool{}
	for _, q := range sources {
		arns[q.ARN] = true
	}
	for arn := range smp.Shares {
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
	if !p.Select.All() {
		p.Sample.Count(p.Select.Match)
		for i := range p.Dests {
			p.Dests[i].Share = p.Sample.Shares[p.Dests[i].SourceARN]
		}
	}
	if p.PerSource {
		return nil
	}
	dest := p.Dest().Queue
	others, n := p.Sample.Others(dest.ARN)
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
