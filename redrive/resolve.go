package redrive

import (
	"context"
	"fmt"

	"github.com/mfdlq/mfdlq/redrive/canary"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/place"
	"github.com/mfdlq/mfdlq/redrive/sample"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Resolve turns a request to move dlq's messages into a plan: the
// destination (--to, else the DLQ's one source queue, else the one origin
// its messages name), checked against the DLQ (not itself, the same FIFO
// or standard type, the same region), the bound and the canary. A DLQ
// with its own redrive policy is refused first, before anything receives
// (checkChained). It reads and changes nothing but a one-second peek when
// it looks for an origin.
//
// The guard's reads of the DLQ alone (its move tasks, its lease) start
// here, beside the plan's own, and those of a destination queue as soon
// as it is known (guard_reads.go); Guard takes them.
func Resolve(ctx context.Context, env *Env, req Request, dlq *sqsapi.Queue) (*Plan, error) {
	if err := checkChained(env, req, dlq); err != nil {
		return nil, err
	}
	tracef("resolve")
	early := startDLQReads(ctx, env, req, dlq)
	var lease *earlyLease
	if leasesEarly(env, req) {
		lease = startEarlyLease(ctx, env, &Plan{Req: req, Source: Source{Queue: dlq}})
	}
	p, err := resolve(ctx, env, req, dlq, early)
	if err == nil {
		err = p.compileSteps()
	}
	tracef("resolved")
	if p != nil {
		p.reads, p.early = early, lease
	}
	if err != nil {
		DropEarlyLease(ctx, env, &Plan{Source: Source{Queue: dlq}, early: lease})
	}
	return p, err
}

// resolve is Resolve's plan; the reads it starts for Guard go to reads.
func resolve(ctx context.Context, env *Env, req Request, dlq *sqsapi.Queue, reads *guardReads) (*Plan, error) {
	// The source queues are read once: without --to they decide between
	// a queue and a target; with it they show a shared DLQ.
	var sources []*sqsapi.Queue
	var err error
	if req.To == "" {
		if sources, err = sqsapi.SourceQueues(ctx, env.SQS, dlq); err != nil {
			return nil, err
		}
	}
	if p, ok, err := resolveTarget(ctx, env, req, dlq, sources); ok || err != nil {
		return p, err
	}
	// --to's queue is resolved while the source queues are read: the two
	// answers are independent, and taken in the order they always were.
	// The guard's reads of it start as soon as it is resolved (and fit to
	// be the destination), beside the source queues' reading too.
	var toRead *answer[*sqsapi.Queue]
	var toReads *destReads // written before toRead is answered
	if req.To != "" {
		toRead = ahead(func() (*sqsapi.Queue, error) {
			q, err := sqsapi.Resolve(ctx, env.SQS, req.To, env.Region)
			if err == nil && checkDest(q, dlq) == nil {
				toReads = startDestReads(ctx, env, req, q)
			}
			return q, err
		})
		if sources, err = sqsapi.SourceQueues(ctx, env.SQS, dlq); err != nil {
			env.Warn("shared DLQ not checked: %v", err)
		}
	}
	// A DLQ shared by several queues holds messages of each: a harmless
	// sample shows which (DeadLetterQueueSourceArn), so that none goes to a
	// stranger's queue.
	var smp sample.Sources
	if req.To == "" && len(sources) == 1 && checkDest(sources[0], dlq) == nil {
		// The one source queue is the destination unless the sample shows
		// another's messages: its guard reads go beside the sample.
		reads.dest = startDestReads(ctx, env, req, sources[0])
	}
	if len(sources) > 0 {
		if smp, err = sample.Take(ctx, env.SQS, dlq); err != nil {
			return nil, err
		}
	}
	shared := isShared(sources, smp)
	var dest *sqsapi.Queue
	switch {
	case req.To != "":
		if dest, err = toRead.wait(); err != nil {
			return nil, err
		}
		reads.dest = toReads
	case shared && len(smp.Shares) > 0:
		return resolveShared(ctx, env, req, dlq, sources, smp)
	case len(sources) != 1:
		return nil, usagef("%s is the DLQ of %d queues and none of the %d messages looked at carries a %s: name the destination with --to QUEUE", dlq.Name, len(sources), smp.Looked, sqsjson.AttrDeadLetterQueueSourceArn)
	default:
		dest = sources[0]
	}
	if err := checkDest(dest, dlq); err != nil {
		return nil, err
	}
	p := &Plan{Req: req, Source: Source{Queue: dlq}, Dests: []Destination{{Queue: dest}}, Backlog: int(dlq.Depth.Total()), Workers: req.workers(),
		Sample: smp, Narrow: shared && req.To != ""}
	// A native move has no canary unless asked: SQS moves it all at once.
	p.sizeCanary(dest.DeadLettersTo(dlq) && !req.Native, canary.Wait(dest, dlq))
	return p, nil
}

// resolveTarget builds the plan of a redrive to a function, topic or bus:
// the one --to names, or the one the DLQ's messages name when --to is
// omitted and the DLQ is no queue's DLQ (sources, read by Resolve, is
// empty). ok is false when the destination
// is a queue: Resolve goes on with it.
func resolveTarget(ctx context.Context, env *Env, req Request, dlq *sqsapi.Queue, sources []*sqsapi.Queue) (p *Plan, ok bool, err error) {
	t, origin := req.Target, ""
	if req.To == "" {
		if len(sources) > 0 {
			return nil, false, nil
		}
		if p, err := resolveSubscription(ctx, env, req, dlq); p != nil || err != nil {
			return p, true, err
		}
		cands, err := originCandidates(ctx, env, dlq)
		if err != nil {
			return nil, true, err
		}
		if len(cands) != 1 {
			return nil, true, noDefaultTarget(dlq, cands)
		}
		t, origin = cands[0].ref, cands[0].why
		if err := place.CheckProposed(dlq.Name, place.Place{Account: dlq.Account, Region: dlq.Region}, t.Ref, origin); err != nil {
			return nil, true, &Refusal{Reason: err.Error()}
		}
		env.Info("destination: %s, proposed by %s; --to names another", t, origin)
	}
	if t.Kind == "" {
		return nil, false, nil
	}
	if region := arnRegion(t.Ref); region != "" && region != dlq.Region && dlq.Region != "" {
		return nil, true, usagef("--to %s is in region %s, the DLQ in %s: mfdlq redrives within one region", t, region, dlq.Region)
	}
	ot, err := openTarget(ctx, env, t, dlq)
	if err != nil {
		return nil, true, err
	}
	p = &Plan{Req: req, Source: Source{Queue: dlq}, Origin: origin, Backlog: int(dlq.Depth.Total()), Workers: req.workers(),
		Dests: []Destination{{Queue: ot.dest, Target: ot.target, TargetLines: ot.lines}}}
	// As for a queue: a canary by default only towards where the messages
	// came from, whose consumer failed them.
	p.sizeCanary(origin != "", ot.canaryWait)
	return p, true, nil
}

// ResolveFile is the plan of a move from an export (src, standing in for
// a DLQ and named by file) to the queue dests[0] (--to), or without --to
// each line to its recorded source among dests (FileDests), left messages
// still to move. The canary runs only when asked for: the file has no
// source whose consumer it fed; it is checked in the (first) destination's
// own DLQ.
func ResolveFile(ctx context.Context, env *Env, req Request, file *sqsapi.Queue, routes *FileRoutes, src mover.SQS, left int) (*Plan, error) {
	dests := routes.Dests
	dest := dests[0]
	p := &Plan{Req: req, Source: Source{Queue: file, File: src}, Backlog: left, Workers: req.workers(), PerSource: req.To == "", FileRefused: routes.Refused}
	for _, q := range dests {
		d := Destination{Queue: q}
		if p.PerSource {
			d.SourceARN = q.ARN
		}
		p.Dests = append(p.Dests, d)
	}
	p.sizeCanary(false, 0)
	if p.Canary > 0 && dest.RedrivePolicy != nil {
		dlq, err := sqsapi.Resolve(ctx, env.SQS, dest.RedrivePolicy.DeadLetterTargetArn, env.Region)
		if err != nil {
			return nil, fmt.Errorf("the DLQ of %s, where the canary would come back: %w", dest.Name, err)
		}
		p.Source.ReturnsTo = dlq
		if p.CanaryWait == 0 {
			p.CanaryWait = canary.Wait(dest, dlq)
		}
	}
	if p.CanaryWait == 0 {
		p.CanaryWait = canary.Wait(dest, file)
	}
	return p, p.compileSteps()
}
