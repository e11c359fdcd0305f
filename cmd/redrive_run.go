package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// redrivePlan is what a redrive is about to do, printed before it asks.
type redrivePlan struct {
	dlq, dest *sqsapi.Queue
	backlog   int
	bound     int
	canary    int
	wait      time.Duration
	workers   int
	// target is set for a Lambda, SNS or EventBridge destination; dest
	// then names it (see resolveTarget).
	target      redrive.Target
	targetLines []string
	// attempt numbers the fix this redrive moves after; newFix tells
	// whether --fixed records a fix (not the latest one again).
	attempt int
	newFix  bool
	// consumers are the destination's Lambda functions as read now,
	// recorded in the redrive event for the next attempt's check.
	consumers []redrive.Function
	// run names this run in the journal and the lease.
	run string
	// rateFrom is when the run asked for the lease: a --rate's clock
	// starts there, so the lease's read-back is the rate's first second.
	// rateStart is where the achieved rate counts from (redrive.RateStart;
	// zero: the move's start).
	rateFrom, rateStart time.Time
	// source serves the messages of --from-file in place of the DLQ, and
	// returnsTo is the queue its canary looks in (the destination's DLQ).
	source    redrive.SQS
	returnsTo *sqsapi.Queue
}

// mover is what the mover receives from and sends to: the file source
// with --from-file, else SQS.
func (p *redrivePlan) mover(client sqsapi.Client) redrive.SQS {
	if p.source != nil {
		return p.source
	}
	return client
}

func runRedrive(ctx context.Context, o *redriveOptions) error {
	d := o.deps
	if o.FromFile != "" {
		return runRedriveFromFile(ctx, o)
	}
	client, dlq, err := d.resolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	p, err := o.resolve(ctx, client, dlq)
	if err != nil {
		return err
	}
	d.announce("redriving", p.dlq)
	d.infof("destination: account %s · region %s · %s", orUnknown(p.dest.Account), orUnknown(p.dest.Region), p.destText())
	o.printTarget(p)
	ws, err := d.Workspace(p.dlq.Name)
	if err != nil {
		return err
	}
	if err := o.guard(ctx, ws, p); err != nil {
		return err
	}
	if err := o.checkLease(ctx, client, p); err != nil {
		return err
	}
	d.warnf("redrive is at least once: a message can reach %s twice, so its consumer must be idempotent", p.dest.Name)
	o.printPlan(p)
	if o.DryRun {
		d.infof("dry run: nothing changed")
		return nil
	}
	return o.confirmAndMove(ctx, client, ws, p)
}

// confirmAndMove asks, records the fix, and moves.
func (o *redriveOptions) confirmAndMove(ctx context.Context, client sqsapi.Client, ws *incident.Workspace, p *redrivePlan) error {
	d := o.deps
	if err := d.confirm(fmt.Sprintf("Move up to %s from %s to %s?", plural.Of(p.bound, "message"), p.dlq.Name, p.dest.Name), o.Yes); err != nil {
		return err
	}
	p.run = redrive.NewRunID(d.Now())
	p.rateFrom = time.Now()
	ctx, release, err := o.takeLease(ctx, client, p)
	if err != nil {
		return err
	}
	defer release()
	if p.newFix {
		ev := d.Event("fix", p.dlq)
		ev.Inputs = map[string]any{"change": o.Fixed}
		ev.Figures = map[string]any{"attempt": p.attempt}
		if err := ws.Append(ev); err != nil {
			return err
		}
	}
	if o.Native {
		return o.runNative(ctx, client, ws, p)
	}
	return o.move(ctx, client, ws, p)
}

// resolve finds the destination of dlq and checks they fit together.
func (o *redriveOptions) resolve(ctx context.Context, client sqsapi.Client, dlq *sqsapi.Queue) (*redrivePlan, error) {
	d := o.deps
	if p, ok, err := o.resolveTarget(ctx, client, dlq); ok || err != nil {
		return p, err
	}
	var err error
	var dest *sqsapi.Queue
	if o.To != "" {
		if dest, err = sqsapi.Resolve(ctx, client, o.To, d.Region(ctx)); err != nil {
			return nil, err
		}
	} else {
		sources, err := sqsapi.SourceQueues(ctx, client, dlq)
		if err != nil {
			return nil, err
		}
		if len(sources) != 1 {
			return nil, usageErrorf("%s is the DLQ of %d queues: name the destination with --to QUEUE", dlq.Name, len(sources))
		}
		dest = sources[0]
	}
	switch {
	case sqsapi.SameQueue(dest, dlq):
		return nil, usageErrorf("the destination %s is the DLQ itself (%s): pass --to with another queue", dest.Name, orUnknown(dlq.ARN))
	case dest.FIFO != dlq.FIFO:
		return nil, usageErrorf("%s and %s are not of the same type (FIFO and standard): pick a destination of the DLQ's type", dlq.Name, dest.Name)
	}
	p := &redrivePlan{dlq: dlq, dest: dest, backlog: int(dlq.Depth.Total()), workers: o.workers()}
	p.bound = p.backlog
	if o.Max > 0 {
		p.bound = min(o.Max, p.backlog)
	}
	toSource := dest.DeadLettersTo(dlq)
	p.canary = o.Canary
	if p.canary < 0 {
		p.canary = 0
		if toSource && !o.Native {
			p.canary = 10
		}
	}
	p.canary = min(p.canary, p.bound)
	p.wait = o.CanaryWait
	if p.wait == 0 {
		p.wait = redrive.CanaryWait(dest, dlq)
	}
	return p, nil
}

func (o *redriveOptions) printPlan(p *redrivePlan) {
	d := o.deps
	est := redrive.EstimateMove(p.bound, o.Rate, p.wait*time.Duration(min(p.canary, 1)), o.Native)
	rate, dur := "max", est.Text()
	if o.Rate > 0 {
		rate = fmt.Sprintf("%g msg/s", o.Rate)
	}
	sel := "every message"
	if !o.selection.Empty() {
		sel = o.selectionText()
	}
	verb := "move"
	if o.Keep {
		verb = "copy (--keep: nothing deleted)"
	}
	if o.Native {
		verb = "move with SQS's own message move task (--native)"
	}
	d.infof("plan: %s up to %d of %s in %s → %s", verb, p.bound, plural.Of(p.backlog, "message"), p.dlq.Name, p.dest.Name)
	d.infof("plan: selection %s; rate %s; duration %s", sel, rate, dur)
	for _, w := range est.WaysOut() {
		d.infof("plan: %s", w)
	}
	if !o.Native {
		policy := fmt.Sprintf("adaptive, up to %d batches in flight (--max-workers)", p.workers)
		if o.Workers > 0 {
			policy = fmt.Sprintf("fixed, %s in flight (--workers)", plural.Of(p.workers, "batch", "batches"))
		}
		// No more than the move's bound can be sent twice, whatever the
		// batches in flight.
		d.infof("plan: concurrency %s; a SIGKILL mid-move duplicates at most %s", policy, plural.Of(min(10*p.workers, p.bound), "message"))
	}
	if p.canary > 0 {
		d.infof("plan: canary of %d first, then %s wait for them to come back (--canary 0 to skip)", p.canary, p.wait)
	}
	if o.Native && p.dlq.FIFO {
		d.infof("plan: SQS replaced each message's deduplication id with its original MessageId when it entered the FIFO DLQ, and the move task sends it with that id: %s drops it, silently, if it saw that id in the last 5 minutes; in doubt mfdlq moves with its own mover (fresh mfdlq-<MessageId> ids)", p.dest.Name)
	}
}

func (o *redriveOptions) selectionText() string {
	s := ""
	add := func(k, v string) {
		if v != "" {
			if s != "" {
				s += ", "
			}
			s += k + " " + v
		}
	}
	add("--filter", o.Filter)
	add("--sent-after", o.SentAfter)
	add("--sent-before", o.SentBefore)
	add("--group", o.Group)
	return s
}

// finish turns the figures into the exit status: interrupted, halted or
// failed messages are not a success.
func (o *redriveOptions) finish(ctx context.Context, st redrive.Stats, runErr error) error {
	d := o.deps
	if st.PendingDelete > 0 {
		d.warnf("%s sent but not deleted (the delete failed): run the same command again to delete them (they will not be sent twice)", plural.Of(st.PendingDelete, "message"))
	}
	for _, t := range st.FilterErrorTexts {
		d.warnf("--filter failed: %s", untrusted.Shorten(untrusted.Terminal(t), 300))
	}
	switch {
	case runErr != nil:
		// The exit status follows runErr (5: a queue deleted, 4: denied);
		// the line says what had moved by then.
		return fmt.Errorf("%w; %s had moved before it stopped (each one is in %s)", runErr, plural.Of(st.Moved+st.Resumed, "message"), incident.JournalFile)
	case lostLease(ctx) != nil:
		return checkFailedf("stopped: %s; what moved stays moved, and the other run goes on with the rest", untrusted.Shorten(untrusted.Terminal(lostLease(ctx).Error()), 300))
	case ctx.Err() != nil:
		d.infof("interrupted: run the same command again to finish the move")
		return errInterrupted
	case strings.HasPrefix(st.Halted, "circuit breaker"):
		return checkFailedf("halted: %s: the fix is not the right one — back to step 2 (mfdlq classify)", st.Halted)
	case strings.HasPrefix(st.Halted, redrive.HaltFilter):
		return checkFailedf("--%s; nothing was moved: fix the filter (it sees the message with .Body parsed when it is JSON)", st.Halted)
	case st.Halted != "":
		return checkFailedf("halted: %s; what moved stays moved, the rest is in the DLQ", st.Halted)
	case st.Failed > 0:
		return checkFailedf("%s could not be moved and stay in the DLQ (last error: %s); see %s", plural.Of(st.Failed, "message"), st.LastError, incident.JournalFile)
	case st.FilterErrors > 0:
		return checkFailedf("--filter failed on %s, left in the DLQ (journaled as filter_error in %s): fix the filter and run the same command again", plural.Of(st.FilterErrors, "message"), incident.JournalFile)
	}
	return nil
}

// lostLease is why ctx was cancelled when another run took the lease over.
func lostLease(ctx context.Context) *errLeaseLost {
	var lost *errLeaseLost
	if errors.As(context.Cause(ctx), &lost) {
		return lost
	}
	return nil
}
