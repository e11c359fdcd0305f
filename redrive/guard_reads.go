package redrive

import (
	"context"
	"fmt"

	"github.com/mfdlq/mfdlq/redrive/consumer"
	"github.com/mfdlq/mfdlq/redrive/movetask"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// The guard's AWS reads depend on nothing but the plan — the DLQ's move
// tasks, each destination's Lambda consumers and its mappings, the lease's
// tag — so Guard starts them together (startReads) and each check then
// takes its read's answer where it always read it, in the same order. What
// is printed, and which refusal wins, stays as it was; only the waits
// overlap (at 20 ms a call, a dozen reads one after another were a
// quarter of a second of a 5,000-message redrive). A warning a read makes
// is kept with its answer and said when the check takes it. A read whose
// question depends on another's answer (the idempotency store, named by a
// consumer's environment) stays where it is.
//
// A destination queue known before its plan — --to's, resolved while the
// source queues are read; the one source queue, while the DLQ is sampled
// — has its reads started then (startDestReads), once it passed the
// plan's own checks of it (checkDest): its mappings, and its consumers
// when Guard will ask for them whatever the incident says (no
// --idempotency-table). startReads takes them up for that destination.

// answer is one read started ahead of the check that takes it.
type answer[T any] struct {
	done chan struct{}
	v    T
	err  error
}

// ahead starts read at once, in its own goroutine.
func ahead[T any](read func() (T, error)) *answer[T] {
	a := &answer[T]{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.v, a.err = read()
	}()
	return a
}

// wait is the read's answer, once it is in.
func (a *answer[T]) wait() (T, error) {
	<-a.done
	return a.v, a.err
}

// mappingRead is a destination's mappings and the warnings their reading
// made (a reserved concurrency that could not be read).
type mappingRead struct {
	states []consumer.Mapping
	warns  []string
}

// guardReads are the reads Guard started; nil (no Guard running) reads at
// the moment of asking, as before.
type guardReads struct {
	tasks     *answer[*movetask.RunningTask]
	consumers map[*Destination]*answer[[]consumer.Function]
	mappings  map[*Destination]*answer[mappingRead]
	lease     *answer[leaseLook]
	// dest are a destination queue's reads started with the plan (nil:
	// none).
	dest *destReads
}

// destReads are the reads of the destination queue arn started before
// Guard; consumers is nil when Guard decides whether to read them.
type destReads struct {
	arn       string
	consumers *answer[[]consumer.Function]
	mappings  *answer[mappingRead]
}

// startDestReads starts the reads Guard makes of the destination queue q
// (see startReads): its mappings, and its consumers when req names no
// idempotency table (Guard then reads them, gated or not).
func startDestReads(ctx context.Context, env *Env, req Request, q *sqsapi.Queue) *destReads {
	r := &destReads{arn: q.ARN, mappings: readMappings(ctx, env, q.ARN)}
	if req.IdempotencyTable == "" {
		d := &Destination{Queue: q}
		r.consumers = ahead(func() ([]consumer.Function, error) { return destConsumers(ctx, env, d) })
	}
	return r
}

// readMappings starts reading the mappings of the queue arn, keeping the
// warnings the reading makes for the check that takes them.
func readMappings(ctx context.Context, env *Env, arn string) *answer[mappingRead] {
	return ahead(func() (mappingRead, error) {
		var m mappingRead
		var err error
		m.states, err = mappingStates(ctx, env, arn, func(f string, a ...any) { m.warns = append(m.warns, fmt.Sprintf(f, a...)) })
		return m, err
	})
}

// startReads starts the guard's independent reads for p. consumersToo
// says the destinations' consumers will be asked for (the fix-deployed
// check is gated, or the idempotency store is to be found through them);
// the move tasks and the lease are looked at only for a DLQ, as
// checkMoveTasks and CheckLease do.
// The DLQ's own reads (startDLQReads) may have started already, with
// Resolve: they are kept.
func startReads(ctx context.Context, env *Env, p *Plan, consumersToo bool) *guardReads {
	r := p.reads
	if r == nil && p.Source.File == nil {
		r = startDLQReads(ctx, env, p.Req, p.Source.Queue)
	}
	if r == nil {
		r = &guardReads{}
	}
	r.consumers, r.mappings = map[*Destination]*answer[[]consumer.Function]{}, map[*Destination]*answer[mappingRead]{}
	for i := range p.Dests {
		d := &p.Dests[i]
		// The reads started with the plan, if they are this queue's.
		var pre *destReads
		if r.dest != nil && d.Target == nil && d.Queue.ARN != "" && d.Queue.ARN == r.dest.arn {
			pre = r.dest
		}
		if consumersToo && (d.Target == nil || TargetKindOf(d.Queue.URL) == KindLambda) {
			if pre != nil && pre.consumers != nil {
				r.consumers[d] = pre.consumers
			} else {
				r.consumers[d] = ahead(func() ([]consumer.Function, error) { return destConsumers(ctx, env, d) })
			}
		}
		if d.Target == nil {
			if pre != nil {
				r.mappings[d] = pre.mappings
			} else {
				r.mappings[d] = readMappings(ctx, env, d.Queue.ARN)
			}
		}
	}
	return r
}

// startDLQReads starts the reads of the DLQ alone: its active move task
// and its lease, as Guard and CheckLease ask for them.
func startDLQReads(ctx context.Context, env *Env, req Request, dlq *sqsapi.Queue) *guardReads {
	stub := &Plan{Req: req, Source: Source{Queue: dlq}}
	return &guardReads{
		tasks: ahead(func() (*movetask.RunningTask, error) { return movetask.ListRunning(ctx, env.SQS, dlq) }),
		lease: ahead(func() (leaseLook, error) { return lookLease(ctx, env, stub) }),
	}
}

// movingTasks is the DLQ's active move task, as read ahead or now.
func (r *guardReads) movingTasks(ctx context.Context, env *Env, p *Plan) (*movetask.RunningTask, error) {
	if r == nil || r.tasks == nil {
		return movetask.ListRunning(ctx, env.SQS, p.Source.Queue)
	}
	return r.tasks.wait()
}

// consumersOf is d's Lambda consumers, as read ahead or now.
func (r *guardReads) consumersOf(ctx context.Context, env *Env, d *Destination) ([]consumer.Function, error) {
	if a, ok := r.consumersRead(d); ok {
		return a.wait()
	}
	return destConsumers(ctx, env, d)
}

func (r *guardReads) consumersRead(d *Destination) (*answer[[]consumer.Function], bool) {
	if r == nil {
		return nil, false
	}
	a, ok := r.consumers[d]
	return a, ok
}

// mappingsOf is d's event source mappings, as read ahead (their warnings
// said now) or now.
func (r *guardReads) mappingsOf(ctx context.Context, env *Env, d *Destination) ([]consumer.Mapping, error) {
	if r != nil {
		if a, ok := r.mappings[d]; ok {
			m, err := a.wait()
			for _, w := range m.warns {
				env.Warn("%s", w)
			}
			return m.states, err
		}
	}
	return mappingStates(ctx, env, d.Queue.ARN, env.Warn)
}

// leaseLook is the DLQ's lease as read ahead for CheckLease.
func (r *guardReads) leaseLook(ctx context.Context, env *Env, p *Plan) (leaseLook, error) {
	if r == nil || r.lease == nil {
		return lookLease(ctx, env, p)
	}
	return r.lease.wait()
}
