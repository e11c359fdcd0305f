package cmd

import (
	"context"

	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/spf13/cobra"
)

// runbookOptions are the flags of mfdlq runbook.
type runbookOptions struct {
	deps      *Deps
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

func newRunbookCmd(d *Deps, runF func(*runbookOptions) error) *cobra.Command {
	opts := &runbookOptions{deps: d}
	c := &cobra.Command{
		Use:   "runbook --queue DLQ [--log-group G] [--rate R] [--fixed TEXT] [--yes]",
		Short: "All seven steps, guided",
		Long:  docs.Long("runbook") + exitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  stepRunE(d, opts, opts.validate, func() string { return opts.Queue }, runF, runRunbook),
	}
	f := c.Flags()
	addQueueFlag(f, &opts.Queue)
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

func (o *runbookOptions) validate() error {
	if o.Queue == "" {
		return errNoQueue
	}
	_, err := parseRate(o.Rate)
	return err
}

func runRunbook(ctx context.Context, o *runbookOptions) error {
	d := o.deps
	_, q, err := d.resolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	d.announce("runbook", q)
	env := &runbookEnv{o: o, q: q}
	flow := &runbook.Flow{Queue: q.Name, LogGroups: len(o.LogGroups) > 0, Rate: o.Rate, Fixed: o.Fixed,
		Unattended: o.Yes || !d.IO.InTTY, Env: env}
	stop, stepErr := flow.Walk(ctx)
	if ctx.Err() != nil {
		// Ctrl-C or SIGTERM: what ran is in the incident; no more steps,
		// not even the report, which the operator writes when ready.
		d.warnf("runbook interrupted: nothing more ran; mfdlq record --queue %s writes the report", q.Name)
		return errInterrupted
	}
	switch {
	case stepErr != nil:
		d.warnf("runbook stopped: %v", stepErr)
	case stop != nil:
		d.warnf("runbook stopped: %s", stop.Why)
		d.infof("what to do: %s", stop.Todo)
	default:
		d.infof("\nrunbook complete: the report follows")
	}
	// The report's path is the last line.
	recErr := flow.Finish(ctx, stop)
	switch {
	case stepErr != nil:
		return stepErr
	case recErr != nil:
		return recErr
	case stop != nil:
		return errSilentCheckFailed
	}
	return nil
}
