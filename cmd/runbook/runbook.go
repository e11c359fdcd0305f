// Package runbook is `mfdlq runbook`: the seven steps, guided. The flow
// (order, forks, the safe choice at each) is the runbook step package's
// (imported as runbookstep); this package asks, runs each step through
// the StepRunner cmd gives it, and says what happened.
package runbook

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/redrive"
	runbookstep "github.com/mfdlq/mfdlq/runbook"
)

// StepRunner runs one step of the runbook the way its command runs, with
// d (a copy of the runbook's Deps the step may change: its command line
// is the step's own) and the runbook's options. cmd gives it: it knows
// every command, and a command's package imports no other's.
type StepRunner func(ctx context.Context, d *cmdutil.Deps, o *RunbookOptions, queue, step string) error

// RunbookOptions are the flags of mfdlq runbook.
type RunbookOptions struct {
	deps      *cmdutil.Deps
	steps     StepRunner
	Queue     string   // --queue: the DLQ (name, URL or ARN)
	LogGroups []string // --log-group: the consumer's log groups
	Expect    []string // --expect FIELD=VALUE: what the consumer accepts (for classify)
	Baseline  string   // --baseline FILE: healthy messages (for classify)
	Rate      string   // --rate: redrive messages per second, or max
	Fixed     string   // --fixed: what was changed, recorded as the fix
	Cause     string   // --cause: for the report
	Warning   string   // --warning: for the report
	Yes       bool     // --yes: unattended, the safe choice at every fork
}

// NewCmdRunbook is `mfdlq runbook`; steps runs its steps (cmd's), runF,
// when not nil, gets the parsed options instead of the run (tests).
func NewCmdRunbook(d *cmdutil.Deps, steps StepRunner, runF func(*RunbookOptions) error) *cobra.Command {
	opts := &RunbookOptions{deps: d, steps: steps}
	c := &cobra.Command{
		Use:   "runbook --queue DLQ [--log-group G] [--rate R] [--fixed TEXT] [--yes]",
		Short: "All seven steps, guided",
		Long:  docs.Long("runbook") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  cmdutil.StepRunE(d, opts, opts.validate, func() string { return opts.Queue }, runF, runRunbook),
	}
	f := c.Flags()
	cmdutil.AddQueueFlag(f, &opts.Queue)
	f.StringArrayVar(&opts.LogGroups, "log-group", nil, "the consumer's CloudWatch Logs group (repeatable); without it step 4 is skipped")
	f.StringArrayVar(&opts.Expect, "expect", nil, "FIELD=VALUE the consumer accepts, e.g. version=1 (repeatable; lets classify prove poison)")
	f.StringVar(&opts.Baseline, "baseline", "", "healthy messages for classify to compare with (JSON Lines or {\"Messages\": [...]})")
	f.StringVar(&opts.Rate, "rate", "10", "redrive rate: messages per second, or max")
	f.StringVar(&opts.Fixed, "fixed", "", "record what was changed (the fix) so a poison DLQ may be redriven")
	f.StringVar(&opts.Cause, "cause", "", "what caused it, for the report")
	f.StringVar(&opts.Warning, "warning", "", "what would have warned earlier, for the report")
	f.BoolVar(&opts.Yes, "yes", false, "run unattended, taking the safe choice at every fork")
	return c
}

func (o *RunbookOptions) validate() error {
	if o.Queue == "" {
		return cmdutil.ErrNoQueue
	}
	if _, err := redrive.ParseRate(o.Rate); err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	return nil
}

func runRunbook(ctx context.Context, o *RunbookOptions) error {
	d := o.deps
	_, q, err := d.ResolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	d.Announce("runbook", q)
	env := &runbookEnv{o: o, q: q}
	flow := &runbookstep.Flow{Queue: q.Name, LogGroups: len(o.LogGroups) > 0, Rate: o.Rate, Fixed: o.Fixed,
		Unattended: o.Yes || !d.IO.InTTY, Env: env}
	stop, stepErr := flow.Walk(ctx)
	if ctx.Err() != nil {
		// Ctrl-C or SIGTERM: what ran is in the incident; no more steps,
		// not even the report, which the operator writes when ready.
		d.Warnf("runbook interrupted: nothing more ran; mfdlq record --queue %s writes the report", q.Name)
		return cmdutil.ErrInterrupted
	}
	switch {
	case stepErr != nil:
		d.Warnf("runbook stopped: %v", stepErr)
	case stop != nil:
		d.Warnf("runbook stopped: %s", stop.Why)
		d.Infof("what to do: %s", stop.Todo)
	default:
		d.Infof("\nrunbook complete: the report follows")
	}
	// The report's path is the last line.
	recErr := flow.Finish(ctx, stop)
	switch {
	case stepErr != nil:
		return stepErr
	case recErr != nil:
		return recErr
	case stop != nil:
		return cmdutil.ErrSilentCheckFailed
	}
	return nil
}
