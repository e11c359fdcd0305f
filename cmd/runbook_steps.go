package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mfdlq/mfdlq/redrive"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// runbookEnv runs the runbook's steps as their commands, and is its
// terminal: what runbook.Flow needs from cmd.
type runbookEnv struct {
	o *runbookOptions
	q *sqsapi.Queue
}

var _ runbook.Env = (*runbookEnv)(nil)

// Run runs one step the way its command runs, with Deps whose command line
// is the step's own, so the incident records what the operator could rerun.
func (e *runbookEnv) Run(ctx context.Context, step string) error {
	o, name := e.o, e.q.Name
	sd := *o.deps
	switch step {
	case runbook.StepContain:
		// 4 s of sampling, not contain's 10: the runbook has more steps to go.
		return runAs(ctx, &sd, newContainCmd, runContain, "contain", "--queue", name, "--sample-for", "4s")
	case runbook.StepInspect:
		// 100, not inspect's 10: classify reads this sample, and a hundred
		// messages show a pattern where ten show anecdotes. Ten rows and a
		// summary by fingerprint are enough to read at 3 a.m.
		return runAs(ctx, &sd, newInspectCmd, runInspect, "inspect", "--queue", name, "--max", "100", "--rows", "10")
	case runbook.StepChanges:
		// A consumer's log group /aws/lambda/NAME names a consumer no
		// mapping may name (one reading with its own poller).
		argv := []string{"changes", "--queue", name}
		for _, g := range o.LogGroups {
			if fn, ok := strings.CutPrefix(g, "/aws/lambda/"); ok && fn != "" {
				argv = append(argv, "--function", fn)
			}
		}
		return runAs(ctx, &sd, newChangesCmd, runChanges, argv...)
	case runbook.StepClassify:
		argv := []string{"classify", "--queue", name}
		for _, x := range o.Expect {
			argv = append(argv, "--expect", x)
		}
		if o.Baseline != "" {
			argv = append(argv, "--baseline", o.Baseline)
		}
		return runAs(ctx, &sd, newClassifyCmd, runClassify, argv...)
	case runbook.StepLogs:
		argv := []string{"logs", "--queue", name}
		for _, g := range o.LogGroups {
			argv = append(argv, "--log-group", g)
		}
		return runAs(ctx, &sd, newLogsCmd, runLogs, argv...)
	case runbook.StepRedrive:
		// The fix was recorded by the fix step; redrive keeps its own
		// canary, guardrails and confirmation.
		argv := []string{"redrive", "--queue", name, "--rate", o.Rate}
		if o.Yes {
			argv = append(argv, "--yes")
		}
		return runAs(ctx, &sd, newRedriveCmd, runRedrive, argv...)
	case runbook.StepVerify:
		return runAs(ctx, &sd, newVerifyCmd, runVerify, "verify", "--queue", name, "--wait", "2m", "--interval", "3s", "--settle", "10s")
	case runbook.StepCheck:
		// Read-only: it creates no alarm.
		return runAs(ctx, &sd, newCheckCmd, runCheck, "check", "--queue", name)
	case runbook.StepRecord:
		sd.Args = []string{"record", "--queue", name}
		return runRecord(ctx, &recordOptions{deps: &sd, Queue: name, Cause: o.Cause, Warning: o.Warning})
	}
	return fmt.Errorf("runbook: no command runs step %q", step)
}

// runAs runs one step the way its command runs argv: the flags' defaults
// and checks are the command's own, and sd.Args, which the step's event
// records, is exactly what ran.
func runAs[O any](ctx context.Context, sd *Deps, newCmd func(*Deps, func(*O) error) *cobra.Command, run func(context.Context, *O) error, argv ...string) error {
	sd.Args = argv
	c := newCmd(sd, func(o *O) error { return run(ctx, o) })
	c.SetArgs(argv[1:])
	c.SetOut(io.Discard)
	c.SetErr(io.Discard)
	c.SilenceErrors, c.SilenceUsage = true, true
	return c.ExecuteContext(ctx)
}

// Refused tells a step's "no" (exit 3: not confirmed, a check failed) from
// a failure.
func (e *runbookEnv) Refused(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.Code == ExitCheckFailed
}

// State reads the incident's events; an unreadable incident is one where
// nothing has run.
func (e *runbookEnv) State() runbook.State {
	ws, err := e.o.deps.Workspace(e.q.Name)
	if err != nil {
		return runbook.State{}
	}
	events, _ := ws.Events()
	return runbook.StateOf(events)
}

// RecordFix appends the "fix" event.
func (e *runbookEnv) RecordFix(change string) error {
	d := e.o.deps
	ws, err := d.Workspace(e.q.Name)
	if err != nil {
		return err
	}
	ev := d.Event(runbook.StepFix, e.q)
	if err := ev.SetInputs(redrive.FixInputs{Change: change}); err != nil {
		return err
	}
	return ws.Append(ev)
}

func (e *runbookEnv) Announce(s runbook.Step) { e.o.deps.infof("\n── %s ──", s.Line()) }

// Choose asks, on a terminal without --yes, whether to run the next step.
func (e *runbookEnv) Choose(s runbook.Step) runbook.Choice {
	d := e.o.deps
	if e.o.Yes || !d.IO.InTTY {
		return runbook.Run
	}
	// Ctrl-C, like the end of input, quits; runRunbook then sees the
	// interrupt and ends the run with 130 without its report.
	line, err := d.prompter().Input(fmt.Sprintf("Run %s now? [Y]es / [s]kip / [q]uit:", s.Name))
	if err != nil {
		return runbook.Quit
	}
	switch strings.ToLower(line) {
	case "s", "skip":
		return runbook.Skip
	case "q", "quit":
		return runbook.Quit
	}
	return runbook.Run
}

// Ask reads one line of answer on the terminal.
func (e *runbookEnv) Ask(q string) string {
	line, _ := e.o.deps.prompter().Input(q)
	return line
}

func (e *runbookEnv) Info(format string, args ...any) { e.o.deps.infof(format, args...) }
func (e *runbookEnv) Warn(format string, args ...any) { e.o.deps.warnf(format, args...) }
func (e *runbookEnv) Next(format string, args ...any) { e.o.deps.nextStep(format, args...) }
