package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/changes"
	"github.com/mfdlq/mfdlq/cmd/check"
	"github.com/mfdlq/mfdlq/cmd/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/cmd/contain"
	"github.com/mfdlq/mfdlq/cmd/inspect"
	"github.com/mfdlq/mfdlq/cmd/logs"
	"github.com/mfdlq/mfdlq/cmd/record"
	"github.com/mfdlq/mfdlq/cmd/redrive"
	"github.com/mfdlq/mfdlq/cmd/runbook"
	"github.com/mfdlq/mfdlq/cmd/verify"
	runbookstep "github.com/mfdlq/mfdlq/runbook"
)

// runbookStep runs one step of the runbook the way its command runs
// (runbook.StepRunner), with sd, whose command line is the step's own, so
// the incident records what the operator could rerun.
func runbookStep(ctx context.Context, d *cmdutil.Deps, o *runbook.RunbookOptions, name, step string) error {
	sd := *d
	switch step {
	case runbookstep.StepContain:
		// 4 s of sampling, not contain's 10: the runbook has more steps to go.
		return runCmd(ctx, &sd, contain.NewCmdContain(&sd, nil), "contain", "--queue", name, "--sample-for", "4s")
	case runbookstep.StepInspect:
		// 100, not inspect's 10: classify reads this sample, and a hundred
		// messages show a pattern where ten show anecdotes. Ten rows and a
		// summary by fingerprint are enough to read at 3 a.m.
		return runCmd(ctx, &sd, inspect.NewCmdInspect(&sd, nil), "inspect", "--queue", name, "--max", "100", "--rows", "10")
	case runbookstep.StepChanges:
		// A consumer's log group /aws/lambda/NAME names a consumer no
		// mapping may name (one reading with its own poller).
		argv := []string{"changes", "--queue", name}
		for _, g := range o.LogGroups {
			if fn, ok := strings.CutPrefix(g, "/aws/lambda/"); ok && fn != "" {
				argv = append(argv, "--function", fn)
			}
		}
		return runCmd(ctx, &sd, changes.NewCmdChanges(&sd, nil), argv...)
	case runbookstep.StepClassify:
		argv := []string{"classify", "--queue", name}
		for _, x := range o.Expect {
			argv = append(argv, "--expect", x)
		}
		if o.Baseline != "" {
			argv = append(argv, "--baseline", o.Baseline)
		}
		return runCmd(ctx, &sd, classify.NewCmdClassify(&sd, nil), argv...)
	case runbookstep.StepLogs:
		argv := []string{"logs", "--queue", name}
		for _, g := range o.LogGroups {
			argv = append(argv, "--log-group", g)
		}
		return runCmd(ctx, &sd, logs.NewCmdLogs(&sd, nil), argv...)
	case runbookstep.StepRedrive:
		// The fix was recorded by the fix step; redrive keeps its own
		// canary, guardrails and confirmation.
		argv := []string{"redrive", "--queue", name, "--rate", o.Rate}
		if o.Yes {
			argv = append(argv, "--yes")
		}
		return runCmd(ctx, &sd, redrive.NewCmdRedrive(&sd, nil), argv...)
	case runbookstep.StepVerify:
		return runCmd(ctx, &sd, verify.NewCmdVerify(&sd, nil), "verify", "--queue", name, "--wait", "2m", "--interval", "3s", "--settle", "10s")
	case runbookstep.StepCheck:
		// Read-only: it creates no alarm.
		return runCmd(ctx, &sd, check.NewCmdCheck(&sd, nil), "check", "--queue", name)
	case runbookstep.StepRecord:
		sd.Args = []string{"record", "--queue", name}
		return record.RunRecord(ctx, &sd, record.RecordOptions{Queue: name, Cause: o.Cause, Warning: o.Warning})
	}
	return fmt.Errorf("runbook: no command runs step %q", step)
}

// runCmd runs c, a moved command's (its runF nil), as argv: sd.Args,
// which the step's event records, is exactly what ran.
func runCmd(ctx context.Context, sd *cmdutil.Deps, c *cobra.Command, argv ...string) error {
	sd.Args = argv
	c.SetArgs(argv[1:])
	c.SetOut(io.Discard)
	c.SetErr(io.Discard)
	c.SilenceErrors, c.SilenceUsage = true, true
	return c.ExecuteContext(ctx)
}
