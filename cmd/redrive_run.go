package cmd

import (
	"github.com/mfdlq/mfdlq/redrive/estimate"
	"github.com/mfdlq/mfdlq/redrive/target"

	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

func runRedrive(ctx context.Context, o *redriveOptions) error {
	d := o.deps
	if o.FromFile != "" {
		return runRedriveFromFile(ctx, o)
	}
	client, dlq, err := d.resolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	env := o.env(ctx, client)
	showNote := d.noteAhead(ctx, client, dlq)
	p, err := redrive.Resolve(ctx, env, o.Request, dlq)
	if err != nil {
		return redriveError(err, dlq)
	}
	// A lease taken ahead (--yes) that Run never took up goes back now.
	defer redrive.DropEarlyLease(ctx, env, p)
	d.announce("redriving", dlq)
	showNote()
	d.infof("destination: account %s · region %s · %s", orUnknown(p.Dest().Queue.Account), orUnknown(p.Dest().Queue.Region), p.DestText())
	for _, l := range p.Dest().TargetLines {
		d.infof("target: %s", l)
	}
	if line := p.CrossAccount(); line != "" {
		d.warnf("plan: %s", line)
	}
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return err
	}
	return o.guardAndRun(ctx, env, ws, p)
}

// guardAndRun applies the guardrails, shows the plan, asks, and runs it.
func (o *redriveOptions) guardAndRun(ctx context.Context, env *redrive.Env, ws *incident.Workspace, p *redrive.Plan) error {
	d := o.deps
	dlq := p.Source.Queue
	// The selection is compiled now: Guard counts a shared DLQ's sample under it.
	p.Req.Selector = o.selectorFor(ws)
	if err := redrive.Guard(ctx, env, ws, p); err != nil {
		return redriveError(err, dlq)
	}
	if p.Source.File == nil {
		if err := redrive.CheckLease(ctx, env, p); err != nil {
			return redriveError(err, dlq)
		}
	}
	d.warnf("%s", p.AtLeastOnce())
	env.OperatorARN = o.operator(ctx)
	o.printPlan(p, ws.Dir, env.OperatorARN)
	d.planNotify(&o.notify, dlq.Account)
	if err := o.printTransformPlan(ctx, env, ws, p); err != nil {
		return redriveError(err, dlq)
	}
	o.printDedupePlan()
	question := p.Question()
	if len(o.WhenOK) > 0 {
		finish, err := o.whenOK(ctx, env, ws)
		if err != nil {
			return err
		}
		defer finish()
		question = strings.TrimSuffix(question, "?") + fmt.Sprintf(", once %s %s been OK for %s?", plural.Of(len(o.WhenOK), "alarm"), map[bool]string{true: "has", false: "have"}[len(o.WhenOK) == 1], o.For)
	}
	if o.DryRun {
		if err := o.dryRunTransform(ctx, env, p); err != nil {
			return redriveError(err, dlq)
		}
		if err := o.dryRunDedupe(ctx, env, p); err != nil {
			return redriveError(err, dlq)
		}
		d.infof("dry run: nothing changed")
		return nil
	}
	if err := d.confirm(question, o.Yes); err != nil {
		return err
	}
	tuneGC(p.Backlog)
	sum, err := redrive.Run(ctx, env, ws, p)
	if sum != nil {
		if perr := o.printSummary(sum); perr != nil {
			return perr
		}
		// The step ended (drained, stopped or failed): tell the team once.
		// The context may be cancelled (Ctrl-C): the message still goes.
		d.notifyQueueStep(context.WithoutCancel(ctx), &o.notify, "redrive", dlq, string(sum.Outcome),
			plural.Of(sum.Moved, "message")+" moved to "+p.DestName(), "")
	}
	if err != nil {
		return redriveError(err, dlq)
	}
	return o.done(p, sum)
}

// env is what the protocol needs of this command: its clients, clock and
// incident stamp, and its terminal (lines, the take-over question, the
// progress bar).
func (o *redriveOptions) env(ctx context.Context, client sqsapi.Client) *redrive.Env {
	d := o.deps
	prog := &redriveProgress{d: d, visibility: o.Visibility, rate: o.Rate}
	env := &redrive.Env{
		SQS: client, Region: d.Region(ctx), Now: d.Now, NewEvent: d.Event, Operator: operator(), NoQuestion: o.Yes && !o.DryRun,
		Before:      func(ev []incident.Event) redrive.Before { return runbook.StateOf(ev).BeforeRedrive() },
		Info:        d.infof,
		Warn:        d.warnf,
		Confirm:     func(q string) error { return d.confirm(q, o.Yes) },
		Progress:    prog.update,
		Done:        prog.finish,
		SNS:         func(ctx context.Context) (redrive.SNSClient, error) { return d.SNS(ctx) },
		EventBridge: func(ctx context.Context) (redrive.EventsClient, error) { return d.Events(ctx) },
		S3:          func(ctx context.Context) (lease.S3, error) { return d.s3Client(ctx) },
		OpenOriginals: func(path, dlqARN, run string) (redrive.Originals, error) {
			return archive.OpenOriginals(path, dlqARN, run)
		},
	}
	if d.STS != nil {
		env.STS = func(ctx context.Context) (provenance.Caller, error) { return d.STS(ctx) }
	}
	if d.CloudWatch != nil {
		env.CW = func(ctx context.Context) (cwapi.MetricsAPI, error) { return d.CloudWatch(ctx) }
	}
	if d.DynamoDB != nil {
		env.DynamoDB = func(ctx context.Context) (idempotency.DynamoDB, error) { return d.DynamoDB(ctx) }
	}
	if d.Lambda != nil {
		env.Lambda = func(ctx context.Context) (redrive.LambdaClient, error) {
			return d.Lambda(ctx)
		}
	}
	return env
}

// selectorFor compiles the selection when the move starts; --group reads
// the incident's classification.json then.
func (o *redriveOptions) selectorFor(ws *incident.Workspace) func() (func(*sqsjson.Message) (bool, error), error) {
	return func() (func(*sqsjson.Message) (bool, error), error) { return o.selector(ws) }
}

// redriveError maps the protocol's errors to exit statuses and the lines
// that name the fix.
func redriveError(err error, dlq *sqsapi.Queue) error {
	var refusal *redrive.Refusal
	var loop *target.LoopError
	var route *target.RouteError
	var held *lease.HeldError
	var notLease *lease.NotLeaseError
	switch {
	case errors.As(err, &notLease):
		return refusedf("refusing: %v", notLease)
	case errors.As(err, &refusal):
		return refusedf("refusing: %s", refusal.Reason)
	case errors.As(err, &loop):
		return refusedf("refusing: %v", loop)
	case errors.As(err, &route) && route.Usage:
		return &exitError{Code: ExitUsage, Err: route}
	case errors.As(err, &route):
		return refusedf("refusing: %v", route)
	case errors.As(err, &held):
		how := "is being redriven by"
		if held.Race {
			how = "was taken a moment ago by another redrive:"
		}
		return refusedf("%s %s %s: wait for it to finish, or if that run died pass --take-over", dlq.Name, how, untrusted.Shorten(untrusted.Terminal(held.Holder.Describe()), 300))
	}
	switch redrive.KindOf(err) {
	case redrive.ErrUsage:
		return &exitError{Code: ExitUsage, Err: err}
	case redrive.ErrNotFound:
		return &exitError{Code: ExitNotFound, Err: err}
	}
	return err
}

// operator is who runs the redrive (STS GetCallerIdentity's ARN), for
// the plan, the journal and the event; "" (warned) when STS cannot say:
// the move does not depend on it.
func (o *redriveOptions) operator(ctx context.Context) string {
	d := o.deps
	if d.STS == nil {
		return ""
	}
	arn, err := d.callerARN(ctx)
	if err != nil {
		d.warnf("operator: unknown: %v", err)
	}
	return arn
}

// printPlan prints the plan: on a terminal, what moves from where to
// where, how fast and how long, and what stops it — the lines a person
// decides on at 3 a.m. — and how many more --verbose shows; piped (a log,
// a script) or with --verbose, every line.
func (o *redriveOptions) printPlan(p *redrive.Plan, dir, operator string) {
	d := o.deps
	var more []string
	detail := func(what, line string) {
		if o.Verbose || !d.IO.ErrTTY {
			d.infof("plan: %s", line)
			return
		}
		if len(more) == 0 || more[len(more)-1] != what {
			more = append(more, what)
		}
	}
	defer func() {
		if len(more) > 0 {
			d.infof("plan: more with --verbose: %s", strings.Join(more, ", "))
		}
	}()
	dlq := p.Source.Queue
	est := estimate.Move(p.Bound, o.Rate, p.CanaryWait*time.Duration(min(p.Canary, 1)), o.Native)
	rate, dur := "max", est.Text()
	if o.Rate > 0 {
		rate = fmt.Sprintf("%g msg/s", o.Rate)
	}
	sel := "every message"
	if !o.selection.Empty() {
		sel = p.Req.SelectionText()
	}
	verb := "move"
	if o.Keep {
		verb = "copy (--keep: nothing deleted)"
	}
	if o.Native {
		verb = "move with SQS's own message move task (--native)"
	}
	if n, of, ok := groupShare(dir, p.Req.Group); ok {
		// The selection's count leads: "up to 350 of 350" for a group of
		// 130 read as if the whole DLQ would move.
		d.infof("plan: %s group %s: %d of the %d messages classify read, among the %s in %s → %s (it reads up to %d to find them)",
			verb, p.Req.Group, n, of, plural.Of(p.Backlog, "message"), dlq.Name, p.DestName(), p.Bound)
	} else {
		d.infof("plan: %s up to %d of %s in %s → %s", verb, p.Bound, plural.Of(p.Backlog, "message"), dlq.Name, p.DestName())
	}
	for _, l := range p.SharedLines() {
		d.infof("plan: %s", l)
	}
	d.infof("plan: selection %s; rate %s; duration %s", sel, rate, dur)
	for _, w := range est.WaysOut() {
		d.infof("plan: %s", w)
	}
	if !o.Native {
		policy := fmt.Sprintf("adaptive, up to %d batches in flight (--max-workers)", p.Workers)
		if o.Workers > 0 {
			policy = fmt.Sprintf("fixed, %s in flight (--workers)", plural.Of(p.Workers, "batch", "batches"))
		}
		detail("concurrency", fmt.Sprintf("concurrency %s; a SIGKILL mid-move duplicates at most %s", policy, plural.Of(p.DuplicateBound(), "message")))
	}
	detail("lease", p.LeaseLine())
	for _, l := range provenance.PlanLines(p.ProvenanceOff(), dir, p.Attempt, p.TransformLimits().MaxBytes, untrusted.Terminal(operator)) {
		detail("provenance and operator", l)
	}
	for _, l := range p.WindowLines() {
		// Messages beyond the idempotency window are a decision now; the
		// store and "all within the window" are detail.
		if strings.HasPrefix(l, "idempotency:") || strings.HasPrefix(l, "none of the") || strings.HasPrefix(l, "the messages' ages are not known") {
			detail("idempotency", l)
		} else {
			d.infof("plan: %s", l)
		}
	}
	if p.Canary > 0 {
		d.infof("plan: canary of %d first, then %s wait for them to come back (--canary 0 to skip)", p.Canary, p.CanaryWait)
		if l := p.CanaryProofLine(); l != "" {
			detail("canary proof", l)
		}
	}
	if o.Native && dlq.FIFO {
		d.infof("plan: SQS replaced each message's deduplication id with its original MessageId when it entered the FIFO DLQ, and the move task sends it with that id: %s drops it, silently, if it saw that id in the last 5 minutes; in doubt mfdlq moves with its own mover (fresh mfdlq-<MessageId> ids)", p.DestName())
	}
}

// groupShare is how many of the messages classify read (classification.json
// in the incident dir) fell in group id: the size of a --group selection as
// far as it is known before the move reads the DLQ.
func groupShare(dir, id string) (n, of int, ok bool) {
	if id == "" {
		return 0, 0, false
	}
	ws, err := incident.Existing(dir)
	if err != nil {
		return 0, 0, false
	}
	b, err := ws.ReadFile(incident.ClassificationFile)
	if err != nil {
		return 0, 0, false
	}
	c, err := classify.Parse(b, incident.ClassificationFile)
	if err != nil {
		return 0, 0, false
	}
	g, found := c.Group(id)
	if !found || c.Messages <= 0 {
		return 0, 0, false
	}
	return g.Count, c.Messages, true
}
