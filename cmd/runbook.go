package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
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

	q *sqsapi.Queue
}

func newRunbookCmd(d *Deps, runF func(*runbookOptions) error) *cobra.Command {
	opts := &runbookOptions{deps: d}
	c := &cobra.Command{
		Use:   "runbook --queue DLQ [--log-group G] [--rate R] [--fixed TEXT] [--yes]",
		Short: "All seven steps, guided",
		Long: `Walk the runbook with the operator: contain → inspect → classify → logs →
(the fix) → redrive → verify → check → record. After each step it prints the verdict
and the recommended next step. On a terminal it asks before each step (run,
skip or quit) and the steps that change something ask again with their plan.

It stops where the runbook says stop, and says why and what to do:
  - contain says the problem is alive: stop the bleeding first
  - classify says poison (or data) and no fix is recorded: fix, then rerun
    with --fixed "what changed"
  - the redrive's canary came back: the fix is not the right one
  - verify failed: back to step 2
Whatever happens, it ends by writing the report (step 7).

What it changes in AWS: what its steps change — the redrive moves messages
from the DLQ back to its source (asked for on a terminal, or --yes). With
--yes it runs unattended and takes the safe choice at every fork: it stops
rather than pause a mapping, redrive poison without a fix, or guess.

Examples:
  mfdlq runbook --queue orders-dlq --log-group /aws/lambda/orders-consumer
  mfdlq runbook --queue orders-dlq --log-group /aws/lambda/orders-consumer \
      --expect version=1 --fixed "consumer 1.8.0 accepts version 2" --rate 10 --yes
  mfdlq runbook --queue payments-dlq --incident incidents/INC-4711
` + exitStatusHelp,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if err := opts.deps.checkIncident(opts.Queue); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runRunbook(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Queue, "queue", "", "the DLQ: name, URL or ARN (required)")
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
	switch {
	case o.Queue == "":
		return usageErrorf("--queue is required: the DLQ's name, URL or ARN")
	case o.Rate == "":
		return usageErrorf("--rate must be a number of messages per second or max")
	}
	if o.Rate != "max" {
		var r float64
		if _, err := fmt.Sscanf(o.Rate, "%g", &r); err != nil || r <= 0 {
			return usageErrorf("--rate must be > 0 or max, got %q", o.Rate)
		}
	}
	return nil
}

// runbookStop is why the runbook stopped early, and what to do about it.
type runbookStop struct {
	why, todo string
	// byOperator is a stop the operator chose (quit): nothing more runs,
	// not even the read-only check, only the report.
	byOperator bool
}

func runRunbook(ctx context.Context, o *runbookOptions) error {
	d := o.deps
	_, q, err := d.resolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	o.q = q
	d.announce("runbook", o.q)
	stop, stepErr := o.walk(ctx)
	switch {
	case stepErr != nil:
		d.warnf("runbook stopped: %v", stepErr)
	case stop != nil:
		d.warnf("runbook stopped: %s", stop.why)
		d.infof("what to do: %s", stop.todo)
	default:
		d.infof("\nrunbook complete: the report follows")
	}
	// The report is written whatever happened: an incident that stopped
	// half-way needs its record most. Its path is the last line. The
	// safeguards are looked at first, so it says what would have warned.
	if ctx.Err() == nil && (stop == nil || !stop.byOperator) {
		_ = o.step(ctx, "check", "-", o.runCheckStep)
	}
	recErr := o.step(ctx, "record", "7/7", o.runRecordStep)
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

// walk runs steps 1–6 in order until one says stop.
func (o *runbookOptions) walk(ctx context.Context) (*runbookStop, error) {
	steps := []struct {
		name, num string
		run       func(context.Context, *Deps) (*runbookStop, error)
	}{
		{"contain", "1/7", o.runContainStep},
		{"inspect", "2/7", o.runInspectStep},
		{"classify", "3/7", o.runClassifyStep},
		{"logs", "4/7", o.runLogsStep},
		{"fix", "-", o.runFixStep},
		{"redrive", "5/7", o.runRedriveStep},
		{"verify", "6/7", o.runVerifyStep},
	}
	for _, st := range steps {
		switch o.choose(st.name) {
		case "skip":
			o.deps.infof("skipped %s", st.name)
			continue
		case "quit":
			return &runbookStop{why: "you stopped it before " + st.name, todo: "run mfdlq runbook again (or the steps one by one) when ready", byOperator: true}, nil
		}
		var stop *runbookStop
		err := o.step(ctx, st.name, st.num, func(ctx context.Context, sd *Deps) error {
			var err error
			stop, err = st.run(ctx, sd)
			return err
		})
		if err != nil || stop != nil {
			return stop, err
		}
	}
	return nil, nil
}

// step announces a step and runs it with Deps whose command line is the
// step's own, so the incident records what the operator could rerun.
func (o *runbookOptions) step(ctx context.Context, name, num string, run func(context.Context, *Deps) error) error {
	d := o.deps
	d.infof("\n── step %s: %s ──", num, name)
	sd := *d
	return run(ctx, &sd)
}

// choose asks, on a terminal without --yes, whether to run the next step.
func (o *runbookOptions) choose(name string) string {
	d := o.deps
	if o.Yes || !d.IO.InTTY {
		return "run"
	}
	fmt.Fprintf(d.IO.ErrOut, "Run %s now? [Y]es / [s]kip / [q]uit: ", name)
	line, err := d.IO.ReadLine()
	if err != nil && line == "" {
		return "quit"
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "s", "skip":
		return "skip"
	case "q", "quit":
		return "quit"
	}
	return "run"
}

// latest is the newest event of step in the incident.
func (o *runbookOptions) latest(step string) (incident.Event, bool) {
	ws, err := o.deps.Workspace(o.q.Name)
	if err != nil {
		return incident.Event{}, false
	}
	ev, ok, _ := ws.Latest(step)
	return ev, ok
}

// verdictOf prints a step's verdict and returns it.
func (o *runbookOptions) verdictOf(step string) string {
	ev, ok := o.latest(step)
	if !ok {
		return ""
	}
	if ev.Verdict != "" {
		o.deps.infof("%s: verdict %s", step, ev.Verdict)
	}
	return ev.Verdict
}

// isRefusal tells a step's "no" (exit 3: not confirmed, a check failed)
// from a failure.
func isRefusal(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.code == ExitCheckFailed
}
