package redrive

import (
	"context"
	"fmt"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"strings"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func runRedrive(ctx context.Context, o *RedriveOptions) error {
	d := o.deps
	if o.FromFile != "" {
		return runRedriveFromFile(ctx, o)
	}
	client, dlq, err := d.ResolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	env := o.env(ctx, client)
	showNote := d.NoteAhead(ctx, client, dlq)
	operator := o.operatorAhead(ctx)
	p, err := redrivestep.Resolve(ctx, env, o.Request, dlq)
	if err != nil {
		return redriveError(err, dlq)
	}
	// A lease taken ahead (--yes) that Run never took up goes back now.
	defer redrivestep.DropEarlyLease(ctx, env, p)
	d.Announce("redriving", dlq)
	showNote()
	o.say(p.HeadLines())
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return err
	}
	return o.guardAndRun(ctx, env, ws, p, operator)
}

// guardAndRun applies the guardrails, shows the plan, asks, and runs it;
// operator is who runs it (operatorAhead), taken for the plan.
func (o *RedriveOptions) guardAndRun(ctx context.Context, env *redrivestep.Env, ws *incident.Workspace, p *redrivestep.Plan, operator func() string) error {
	d := o.deps
	dlq := p.Source.Queue
	if err := redrivestep.Guard(ctx, env, ws, p); err != nil {
		return redriveError(err, dlq)
	}
	if p.Source.File == nil {
		if err := redrivestep.CheckLease(ctx, env, p); err != nil {
			return redriveError(err, dlq)
		}
	}
	d.Warnf("%s", p.AtLeastOnce())
	env.OperatorARN = operator()
	o.printPlan(p, ws, env.OperatorARN)
	d.PlanNotify(&o.notify, dlq.Account)
	if err := o.printTransformPlan(ctx, env, ws, p); err != nil {
		return redriveError(err, dlq)
	}
	o.printDedupePlan(p)
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
		if err := o.printDryRun(ctx, env, p); err != nil {
			return redriveError(err, dlq)
		}
		d.Infof("dry run: nothing changed")
		return nil
	}
	if err := d.Confirm(question, o.Yes); err != nil {
		return err
	}
	p.TuneGC()
	sum, err := redrivestep.Run(ctx, env, ws, p)
	if sum != nil {
		if perr := o.printSummary(p, sum); perr != nil {
			return perr
		}
		// The step ended (drained, stopped or failed): tell the team once.
		// The context may be cancelled (Ctrl-C): the message still goes.
		d.NotifyQueueStep(context.WithoutCancel(ctx), &o.notify, "redrive", dlq, string(sum.Outcome),
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
func (o *RedriveOptions) env(ctx context.Context, client sqsapi.Client) *redrivestep.Env {
	d := o.deps
	prog := &redriveProgress{d: d, visibility: o.Visibility, rate: o.Rate}
	env := &redrivestep.Env{
		SQS: client, Region: d.Region(ctx), Now: d.Now, NewEvent: d.Event, Operator: cmdutil.Operator(), NoQuestion: o.Yes && !o.DryRun,
		Before:      func(ev []incident.Event) redrivestep.Before { return runbook.StateOf(ev).BeforeRedrive() },
		Info:        d.Infof,
		Warn:        d.Warnf,
		Confirm:     func(q string) error { return d.Confirm(q, o.Yes) },
		Progress:    prog.update,
		Done:        prog.finish,
		SNS:         func(ctx context.Context) (redrivestep.SNSClient, error) { return d.SNS(ctx) },
		EventBridge: func(ctx context.Context) (redrivestep.EventsClient, error) { return d.Events(ctx) },
		S3:          func(ctx context.Context) (lease.S3, error) { return d.S3Client(ctx) },
		OpenOriginals: func(path, dlqARN, run string) (redrivestep.Originals, error) {
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
		env.Lambda = func(ctx context.Context) (redrivestep.LambdaClient, error) {
			return d.Lambda(ctx)
		}
	}
	return env
}

// redriveError maps the protocol's errors (redrive.SortError) to exit
// statuses.
func redriveError(err error, dlq *sqsapi.Queue) error {
	switch kind, e := redrivestep.SortError(err, dlq.Name); kind {
	case redrivestep.ErrRefused:
		return cmdutil.Refusedf("%s", e)
	case redrivestep.ErrUsage:
		return &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: e}
	case redrivestep.ErrNotFound:
		return &cmdutil.ExitError{Code: cmdutil.ExitNotFound, Err: e}
	}
	return err
}

// operatorAhead starts asking who runs the redrive (STS
// GetCallerIdentity's ARN), for the plan, the journal and the event: the
// question depends on nothing, so it goes beside the plan's and the
// guard's reads instead of after them. The returned func waits for the
// answer; "" (warned then, where the plan is printed) when STS cannot
// say: the move does not depend on it.
func (o *RedriveOptions) operatorAhead(ctx context.Context) func() string {
	d := o.deps
	if d.STS == nil {
		return func() string { return "" }
	}
	var arn string
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		arn, err = d.CallerARN(ctx)
	}()
	return func() string {
		<-done
		if err != nil {
			d.Warnf("operator: unknown: %v", err)
		}
		return arn
	}
}

// printPlan prints the plan (redrivestep.Plan.Lines): on a terminal the lines
// a person decides on at 3 a.m., and which details --verbose shows;
// piped (a log, a script) or with --verbose, every line.
func (o *RedriveOptions) printPlan(p *redrivestep.Plan, ws *incident.Workspace, operator string) {
	d := o.deps
	var more []string
	for _, l := range p.Lines(ws, operator) {
		switch {
		case l.Detail == "" || o.Verbose || !d.IO.ErrTTY:
			d.Infof("plan: %s", l.Text)
		case len(more) == 0 || more[len(more)-1] != l.Detail:
			more = append(more, l.Detail)
		}
	}
	if len(more) > 0 {
		d.Infof("plan: more with --verbose: %s", strings.Join(more, ", "))
	}
}
