package redrive

import (
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/redrive/retry"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// router is the plan's Router: nil for a plan that sends every message to
// its one destination.
func (p *Plan) router() *mover.Router {
	switch {
	case p.PerSource:
		r := &mover.Router{BySource: map[string]*sqsapi.Queue{}}
		for _, d := range p.Dests {
			r.BySource[d.SourceARN] = d.Queue
		}
		return r
	case p.Narrow:
		d := p.Dest().Queue
		return &mover.Router{BySource: map[string]*sqsapi.Queue{d.ARN: d}, Sourceless: d}
	}
	return nil
}

// options are the mover's options of this plan.
func (r *runner) options(sel func(*sqsjson.Message) (bool, error), state *journal.State, jw *journal.Writer, prog *phases) mover.Options {
	p, q := r.p, r.p.Req
	d := p.Dest()
	return mover.Options{
		Source: p.Source.Queue, Dest: d.Queue, Target: d.Target, Rate: q.Rate, RateFrom: r.rateStart, Workers: q.Workers, MaxWorkers: q.MaxWorkers, Backlog: p.Backlog,
		Keep: q.Keep, Select: sel, Dedupe: p.Dedupe, Visibility: q.Visibility, Wait: 2,
		MaxBacklog: q.MaxBacklog, MaxReturned: q.MaxReturned, RunID: r.id, Attempt: p.Attempt, Stamp: provenance.For(p.ProvenanceOff(), r.ws.Dir, r.id, p.Attempt),
		Journal: jw, State: state, Retry: retry.Default(), OnBatch: prog.update, Route: p.router(),
	}
}

// ProvenanceOff is why the plan's messages go unstamped ("": stamped), by the destination's kind, --to given or proposed.
func (p *Plan) ProvenanceOff() string {
	return provenance.Off(p.Req.NoStamp, p.Req.Native, TargetKindOf(p.Dest().Queue.URL))
}

// canaryOptions are the canary phase's options: with several destinations
// (a shared DLQ) up to Canary to each, looking at no more than
// canaryLook messages for them, so that a source with few messages does
// not make the canary read the whole DLQ. A destination with fewer in
// that window gets fewer (the plan said "up to").
func (r *runner) canaryOptions(o mover.Options) mover.Options {
	if len(r.p.Dests) > 1 {
		o.EachMax = r.p.Canary
		o.Backlog = min(o.Backlog, max(canaryLook, 10*r.p.Canary*len(r.p.Dests)))
	}
	return o
}

// canaryLook is the fewest messages a canary per destination looks at.
const canaryLook = 100

// mover is what the mover receives from and sends to: the file source
// with --from-file, else SQS.
func (r *runner) mover() mover.SQS {
	if r.p.Source.File != nil {
		return r.p.Source.File
	}
	return r.env.SQS
}
