package cmd

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

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

func (o *runbookOptions) runContainStep(ctx context.Context, sd *Deps) (*runbookStop, error) {
	// 4 s of sampling, not contain's 10: the runbook has more steps to go.
	err := runAs(ctx, sd, newContainCmd, runContain, "contain", "--queue", o.q.Name, "--sample", "4s")
	if o.verdictOf("contain") == "alive" {
		return &runbookStop{
			why:  "contain says the problem is alive: messages are still failing into the DLQ",
			todo: "stop the bleeding first — pause the consumer's mapping (mfdlq contain --queue " + o.q.Name + " --pause-mapping) or roll back; the redrive can wait",
		}, nil
	}
	if err != nil {
		return nil, err
	}
	o.deps.nextStep("inspect: look at the messages")
	return nil, nil
}

func (o *runbookOptions) runInspectStep(ctx context.Context, sd *Deps) (*runbookStop, error) {
	// 100, not inspect's 10: classify reads this sample, and a hundred
	// messages show a pattern where ten show anecdotes.
	if err := runAs(ctx, sd, newInspectCmd, runInspect, "inspect", "--queue", o.q.Name, "--max", "100"); err != nil {
		return nil, err
	}
	return nil, nil
}

// runClassifyStep classifies a live sample; the fix step reads its verdict.
func (o *runbookOptions) runClassifyStep(ctx context.Context, sd *Deps) (*runbookStop, error) {
	argv := []string{"classify", "--queue", o.q.Name}
	for _, e := range o.Expect {
		argv = append(argv, "--expect", e)
	}
	if o.Baseline != "" {
		argv = append(argv, "--baseline", o.Baseline)
	}
	if err := runAs(ctx, sd, newClassifyCmd, runClassify, argv...); err != nil {
		return nil, err
	}
	switch v := o.verdictOf("classify"); v {
	case "transient":
		o.deps.nextStep("once the dependency is healthy, redrive")
	case "poison", "data", "mixed":
		o.deps.nextStep("fix the consumer (or the data), record it (--fixed), then redrive")
	default:
		o.deps.nextStep("logs: the consumer's exception tells what classify could not")
	}
	return nil, nil
}

func (o *runbookOptions) runLogsStep(ctx context.Context, sd *Deps) (*runbookStop, error) {
	if len(o.LogGroups) == 0 {
		o.deps.warnf("no --log-group: the consumer's exceptions were not searched (mfdlq logs --queue %s --log-group G)", o.q.Name)
		return nil, nil
	}
	argv := []string{"logs", "--queue", o.q.Name}
	for _, g := range o.LogGroups {
		argv = append(argv, "--log-group", g)
	}
	if err := runAs(ctx, sd, newLogsCmd, runLogs, argv...); err != nil {
		return nil, err
	}
	return nil, nil
}

// runFixStep records the fix (--fixed) as a "fix" event, or stops when the
// DLQ holds poison (or bad data) and nothing was fixed.
func (o *runbookOptions) runFixStep(ctx context.Context, sd *Deps) (*runbookStop, error) {
	d := o.deps
	fixed := o.Fixed
	verdict := ""
	if ev, ok := o.latest("classify"); ok {
		verdict = ev.Verdict
	}
	if fixed == "" && !o.Yes && d.IO.InTTY && needsFix(verdict) {
		d.infof("classify says %s: the consumer (or the data) must change before a redrive.", verdict)
		fixed = o.ask("What was changed? (Enter if nothing yet)")
	}
	if fixed == "" {
		if needsFix(verdict) {
			return &runbookStop{
				why:  "classify says " + verdict + " and no fix is recorded: a redrive now sends every message back into the same failure",
				todo: "fix the consumer (or the data at source), then run the runbook again with --fixed \"what changed\"",
			}, nil
		}
		d.infof("no fix recorded; classify says %s", orUnknown(verdict))
		return nil, nil
	}
	ws, err := d.Workspace(o.q.Name)
	if err != nil {
		return nil, err
	}
	ev := d.Event("fix", o.q)
	ev.Inputs = map[string]any{"change": fixed}
	if err := ws.Append(ev); err != nil {
		return nil, err
	}
	d.infof("fix recorded: %s", fixed)
	d.nextStep("redrive at --rate %s", o.Rate)
	return nil, nil
}

func needsFix(verdict string) bool {
	return verdict == "poison" || verdict == "data" || verdict == "mixed"
}

// runRedriveStep moves the DLQ back at --rate with redrive's own canary,
// guardrails and confirmation; the fix was already recorded by the fix step.
func (o *runbookOptions) runRedriveStep(ctx context.Context, sd *Deps) (*runbookStop, error) {
	argv := []string{"redrive", "--queue", o.q.Name, "--rate", o.Rate}
	if o.Yes {
		argv = append(argv, "--yes")
	}
	err := runAs(ctx, sd, newRedriveCmd, runRedrive, argv...)
	if isRefusal(err) {
		return &runbookStop{
			why:  "redrive: " + err.Error(),
			todo: "read the reason above: if moved messages came back, the fix is not the right one — back to step 2 (mfdlq classify); if it was not confirmed, run mfdlq redrive yourself when ready",
		}, nil
	}
	if err != nil {
		return nil, err
	}
	o.deps.nextStep("verify: the DLQ reached zero and nothing came back")
	return nil, nil
}

// runVerifyStep watches the DLQ after the redrive; a failure stops the
// runbook with verify's own evidence above it.
func (o *runbookOptions) runVerifyStep(ctx context.Context, sd *Deps) (*runbookStop, error) {
	if _, ok := o.latest("redrive"); !ok {
		o.deps.infof("no redrive in this incident: nothing to verify")
		return nil, nil
	}
	err := runAs(ctx, sd, newVerifyCmd, runVerify, "verify", "--queue", o.q.Name, "--wait", "2m", "--interval", "3s", "--settle", "10s")
	if o.verdictOf("verify") == "fail" || isRefusal(err) {
		return &runbookStop{
			why:  "verify failed: the DLQ did not reach zero, or moved messages came back",
			todo: "stop and go back to step 2 (mfdlq inspect, mfdlq classify): the fix was not the right one",
		}, nil
	}
	return nil, err
}

// runCheckStep looks at the safeguards (read-only: it creates no alarm) so
// the report can say what would have warned earlier. A failed safeguard is
// a finding for the report, not a reason to stop; nor is a check that could
// not run, such as one denied CloudWatch.
func (o *runbookOptions) runCheckStep(ctx context.Context, sd *Deps) error {
	err := runAs(ctx, sd, newCheckCmd, runCheck, "check", "--queue", o.q.Name)
	if err != nil && !isRefusal(err) {
		o.deps.warnf("check could not run (%v): the report's warnings come from --warning only", err)
	}
	return nil
}

func (o *runbookOptions) runRecordStep(ctx context.Context, sd *Deps) error {
	sd.Args = []string{"record", "--queue", o.q.Name}
	return runRecord(ctx, &recordOptions{deps: sd, Queue: o.q.Name, Cause: o.Cause, Warning: o.Warning})
}

// ask reads one line of answer on the terminal.
func (o *runbookOptions) ask(q string) string {
	d := o.deps
	if d.IO.In == nil {
		return ""
	}
	_, _ = d.IO.ErrOut.Write([]byte(q + " "))
	line, _ := d.IO.ReadLine()
	return strings.TrimSpace(line)
}
