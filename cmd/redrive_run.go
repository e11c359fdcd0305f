package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
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
}

func runRedrive(ctx context.Context, o *redriveOptions) error {
	d := o.deps
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
	if err := o.guard(ws); err != nil {
		return err
	}
	d.warnf("redrive is at least once: a message can reach %s twice, so its consumer must be idempotent", p.dest.Name)
	o.printPlan(p)
	if o.DryRun {
		d.infof("dry run: nothing changed")
		return nil
	}
	if err := d.confirm(fmt.Sprintf("Move up to %d message(s) from %s to %s?", p.bound, p.dlq.Name, p.dest.Name), o.Yes); err != nil {
		return err
	}
	if o.Fixed != "" {
		ev := d.Event("fix", p.dlq)
		ev.Inputs = map[string]any{"change": o.Fixed}
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
	case dest.URL == dlq.URL:
		return nil, usageErrorf("--to is the DLQ itself: name another queue")
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

// guard applies the incident's guardrails.
func (o *redriveOptions) guard(ws *incident.Workspace) error {
	events, err := ws.Events()
	if err != nil {
		return fmt.Errorf("read incident: %w", err)
	}
	if r := redrive.Guardrails(events, o.Fixed); r != nil {
		if !o.Force {
			return checkFailedf("refusing: %s", r.Reason)
		}
		o.deps.warnf("--force: %s", r.Reason)
	}
	return nil
}

func (o *redriveOptions) printPlan(p *redrivePlan) {
	d := o.deps
	rate, dur := "max", "as fast as the queues allow"
	if o.Rate > 0 {
		rate = fmt.Sprintf("%g msg/s", o.Rate)
		dur = "about " + (time.Duration(float64(p.bound)/o.Rate*float64(time.Second)) + p.wait*time.Duration(min(p.canary, 1))).Round(time.Second).String()
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
	d.infof("plan: %s up to %d of %d message(s) in %s → %s", verb, p.bound, p.backlog, p.dlq.Name, p.dest.Name)
	d.infof("plan: selection %s; rate %s with %d worker(s); duration %s", sel, rate, p.workers, dur)
	if p.canary > 0 {
		d.infof("plan: canary of %d first, then %s wait for them to come back (--canary 0 to skip)", p.canary, p.wait)
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
		d.warnf("%d message(s) were sent but their delete failed: run the same command again to delete them (they will not be sent twice)", st.PendingDelete)
	}
	switch {
	case runErr != nil:
		return runErr
	case ctx.Err() != nil:
		d.infof("interrupted: run the same command again to finish the move")
		return errInterrupted
	case strings.HasPrefix(st.Halted, "circuit breaker"):
		return checkFailedf("halted: %s: the fix is not the right one — back to step 2 (mfdlq classify)", st.Halted)
	case st.Halted != "":
		return checkFailedf("halted: %s; what moved stays moved, the rest is in the DLQ", st.Halted)
	case st.Failed > 0:
		return checkFailedf("%d message(s) could not be moved and stay in the DLQ (last error: %s); see %s", st.Failed, st.LastError, incident.JournalFile)
	}
	return nil
}
