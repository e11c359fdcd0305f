package triage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/trailapi"
)

// Step is the name of triage's events (incident.Event.Step).
const Step = "triage"

// CloudWatch is what triage reads from CloudWatch: queue metrics (contain)
// and the alarm history (changes). *cloudwatch.Client satisfies it.
type CloudWatch interface {
	cwapi.MetricsAPI
	cwapi.HistoryAPI
}

// Deps are triage's clients and the incident it writes into. A nil client
// skips the parts that need it, each named in Result.Skipped.
type Deps struct {
	SQS sqsapi.Client
	// CloudWatch: nil, and contain samples the queue's own counters and
	// changes is skipped.
	CloudWatch CloudWatch
	// Lambda lists the mappings that read the source (their functions name
	// the log groups); nil: none are looked for. Only ListEventSourceMappings
	// and GetFunctionConfiguration are called.
	Lambda lambdaapi.LambdaAPI
	// Logs searches the consumer's log groups; nil: no logs.
	Logs logsearch.Client
	// Trail reads CloudTrail's event history, paced by Pacer; nil: no
	// changes.
	Trail trailapi.Client
	Pacer trailapi.Pacer
	// Workspace opens the incident of a queue (by its name) that triage
	// writes into: the command's incident directory, a Lambda's.
	Workspace func(queue string) (*incident.Workspace, error)
	// Now is the one clock.
	Now func() time.Time
	// Warn receives what triage could not use, for stderr or a log; nil
	// drops it (Result.Skipped says it too).
	Warn func(format string, args ...any)
}

// ErrNoWorkspace is a Deps without Workspace: triage writes an incident
// like any step.
var ErrNoWorkspace = errors.New("triage: no incident workspace")

// Run triages req.Queue: it measures, peeks, classifies, reads the logs and
// what changed as far as its clients allow, writes every part's artifact and
// event and then its own into the incident, and returns the answer. It
// never moves, deletes or tags a message nor changes a mapping. An error is
// one that leaves no answer (the queue cannot be read, the incident cannot
// be written); a part that cannot run is skipped and said.
func Run(ctx context.Context, d Deps, req Request) (Result, error) {
	req = req.WithDefaults()
	if err := req.Validate(); err != nil {
		return Result{}, err
	}
	if d.Workspace == nil {
		return Result{}, ErrNoWorkspace
	}
	if d.Now == nil {
		d.Now = func() time.Time { return time.Now().UTC() }
	}
	q, err := sqsapi.Resolve(ctx, d.SQS, req.Queue, req.Region)
	if err != nil {
		return Result{}, err
	}
	ws, err := d.Workspace(q.Name)
	if err != nil {
		return Result{}, err
	}
	t := &run{d: d, req: req, q: q, ws: ws}
	t.res = newResult(q, ws, d.Now())
	if err := t.contain(ctx); err != nil {
		return Result{}, fmt.Errorf("triage %s: %w", q.Name, err)
	}
	if err := t.look(ctx); err != nil {
		return Result{}, fmt.Errorf("triage %s: %w", q.Name, err)
	}
	if err := t.changes(ctx); err != nil {
		return Result{}, fmt.Errorf("triage %s: %w", q.Name, err)
	}
	t.res.Next = t.next()
	if err := t.record(); err != nil {
		return Result{}, err
	}
	return *t.res, nil
}

// run is one triage under way: what the parts share.
type run struct {
	d   Deps
	req Request
	q   *sqsapi.Queue
	ws  *incident.Workspace
	res *Result

	src      *sqsapi.Queue
	mappings []lambdaapi.Mapping
	sample   []sqsjson.Message
	classed  *classify.Classification
}

func (t *run) warn(format string, args ...any) {
	if t.d.Warn != nil {
		t.d.Warn(format, args...)
	}
}

// skip records a part that did not run and why, for the answer (not
// Warn: the answer says it).
func (t *run) skip(step, reason string) {
	t.res.Skipped = append(t.res.Skipped, Skip{Step: step, Reason: reason})
}

// event starts an event of step about the queue, stamped and with the
// command line.
func (t *run) event(step string) incident.Event {
	q := t.q
	return incident.Event{Step: step, Time: t.d.Now().UTC(), Command: t.req.Command,
		Queue: q.Name, QueueURL: q.URL, Account: q.Account, Region: q.Region}
}

// ended tells whether err is the context's end (Ctrl-C, a Lambda's
// deadline), which stops the run instead of skipping a part.
func ended(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
