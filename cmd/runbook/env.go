package runbook

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/redrive"
	runbookstep "github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// runbookEnv runs the runbook's steps as their commands, and is its
// terminal: what runbookstep.Flow needs from cmd.
type runbookEnv struct {
	o *RunbookOptions
	q *sqsapi.Queue
}

var _ runbookstep.Env = (*runbookEnv)(nil)

// Run runs one step the way its command runs, with a copy of the Deps
// whose command line is the step's own, so the incident records what the
// operator could rerun.
func (e *runbookEnv) Run(ctx context.Context, step string) error {
	sd := *e.o.deps
	return e.o.steps(ctx, &sd, e.o, e.q.Name, step)
}

// Refused tells a step's "no" (exit 3: not confirmed, a check failed) from
// a failure.
func (e *runbookEnv) Refused(err error) bool {
	var ee *cmdutil.ExitError
	return errors.As(err, &ee) && ee.Code == cmdutil.ExitCheckFailed
}

// State reads the incident's events; an unreadable incident is one where
// nothing has run.
func (e *runbookEnv) State() runbookstep.State {
	ws, err := e.o.deps.Workspace(e.q.Name)
	if err != nil {
		return runbookstep.State{}
	}
	events, _ := ws.Events()
	return runbookstep.StateOf(events)
}

// RecordFix appends the "fix" event.
func (e *runbookEnv) RecordFix(change string) error {
	d := e.o.deps
	ws, err := d.Workspace(e.q.Name)
	if err != nil {
		return err
	}
	ev := d.Event(runbookstep.StepFix, e.q)
	if err := ev.SetInputs(redrive.FixInputs{Change: change}); err != nil {
		return err
	}
	return ws.Append(ev)
}

func (e *runbookEnv) Announce(s runbookstep.Step) { e.o.deps.Infof("\n── %s ──", s.Line()) }

// Choose asks, on a terminal without --yes, whether to run the next step.
func (e *runbookEnv) Choose(s runbookstep.Step) runbookstep.Choice {
	d := e.o.deps
	if e.o.Yes || !d.IO.InTTY {
		return runbookstep.Run
	}
	// Ctrl-C, like the end of input, quits; runRunbook then sees the
	// interrupt and ends the run with 130 without its report.
	line, err := d.Prompter().Input(fmt.Sprintf("Run %s now? [Y]es / [s]kip / [q]uit:", s.Name))
	if err != nil {
		return runbookstep.Quit
	}
	switch strings.ToLower(line) {
	case "s", "skip":
		return runbookstep.Skip
	case "q", "quit":
		return runbookstep.Quit
	}
	return runbookstep.Run
}

// Ask reads one line of answer on the terminal.
func (e *runbookEnv) Ask(q string) string {
	line, _ := e.o.deps.Prompter().Input(q)
	return line
}

func (e *runbookEnv) Info(format string, args ...any) { e.o.deps.Infof(format, args...) }
func (e *runbookEnv) Warn(format string, args ...any) { e.o.deps.Warnf(format, args...) }
func (e *runbookEnv) Next(format string, args ...any) { e.o.deps.NextStep(format, args...) }
