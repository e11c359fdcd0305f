package runbook

import (
	"context"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/verify"
)

// Choice is the operator's answer before a step.
type Choice int

// The choices before a step.
const (
	Run Choice = iota
	Skip
	Quit
)

// Env is what the flow needs from the command around it: running a step
// the way its command runs, the incident's state, and the operator.
type Env interface {
	// Run runs one step as its command would, with the runbook's inputs.
	Run(ctx context.Context, step string) error
	// Refused tells a step's "no" (exit 3: refused, not confirmed, a check
	// not passed) from a failure.
	Refused(err error) bool
	// State reads where the incident stands now.
	State() State
	// RecordFix appends the fix event.
	RecordFix(change string) error
	// Announce shows the step about to run.
	Announce(s Step)
	// Choose asks whether to run, skip or quit before a step; unattended,
	// it runs.
	Choose(s Step) Choice
	// Ask asks one question on the terminal; "" when there is nobody to ask.
	Ask(question string) string
	Info(format string, args ...any)
	Warn(format string, args ...any)
	// Next recommends the next step.
	Next(format string, args ...any)
}

// Flow is one walk of the runbook for a DLQ.
type Flow struct {
	Queue string
	// LogGroups tells whether the consumer's log groups were given: without
	// them the logs step is skipped with a hint.
	LogGroups bool
	Rate      string // the redrive's --rate, for the hint after the fix
	Fixed     string // --fixed: what was changed, recorded as the fix
	// Unattended (--yes, or no terminal) never asks: it takes the safe
	// choice at every fork.
	Unattended bool
	Env        Env
}

// Stop is why the runbook stopped early, and what to do about it.
type Stop struct {
	Why, Todo string
	// ByOperator is a stop the operator chose (quit): nothing more runs,
	// not even the read-only check, only the report.
	ByOperator bool
}

// Walk runs steps 1–6 in order until one says stop. It returns the stop,
// or the error of a step that failed; both nil when every step ran.
func (f *Flow) Walk(ctx context.Context) (*Stop, error) {
	for _, s := range Steps {
		switch f.Env.Choose(s) {
		case Skip:
			f.Env.Info("skipped %s", s.Name)
			continue
		case Quit:
			return &Stop{Why: "you stopped it before " + s.Name, Todo: "run mfdlq runbook again (or the steps one by one) when ready", ByOperator: true}, nil
		}
		f.Env.Announce(s)
		if stop, err := f.step(ctx, s.Name); err != nil || stop != nil {
			return stop, err
		}
	}
	return nil, nil
}

// Finish looks at the safeguards (unless the operator quit or the context
// ended) and writes the report: an incident that stopped half-way needs
// its record most. A failed safeguard is a finding for the report, not a
// reason to stop; nor is a check that could not run.
func (f *Flow) Finish(ctx context.Context, stop *Stop) error {
	if ctx.Err() == nil && (stop == nil || !stop.ByOperator) {
		f.Env.Announce(Check)
		if err := f.Env.Run(ctx, StepCheck); err != nil && !f.Env.Refused(err) {
			f.Env.Warn("check could not run (%v): the report's warnings come from --warning only", err)
		}
	}
	f.Env.Announce(Record)
	return f.Env.Run(ctx, StepRecord)
}

func (f *Flow) step(ctx context.Context, name string) (*Stop, error) {
	switch name {
	case StepContain:
		return f.contain(ctx)
	case StepChanges:
		f.changes(ctx)
		return nil, nil
	case StepClassify:
		return nil, f.classify(ctx)
	case StepLogs:
		if !f.LogGroups {
			f.Env.Warn("no --log-group: the consumer's exceptions were not searched (mfdlq logs --queue %s --log-group G)", f.Queue)
			return nil, nil
		}
	case StepFix:
		return f.fix()
	case StepRedrive:
		return f.redrive(ctx)
	case StepVerify:
		return f.verify(ctx)
	}
	return nil, f.Env.Run(ctx, name)
}

// verdict prints a step's verdict, when it has one, in words ("not
// alive", not the event's "not_alive").
func (f *Flow) verdict(step, v string) {
	if v != "" {
		f.Env.Info("%s: verdict %s", step, plural.Spoken(v))
	}
}

// contain stops the runbook while the problem is alive: messages are still
// failing into the DLQ, and the redrive can wait.
func (f *Flow) contain(ctx context.Context) (*Stop, error) {
	err := f.Env.Run(ctx, StepContain)
	v := f.Env.State().Contain
	f.verdict(StepContain, string(v))
	if v == contain.Alive {
		return &Stop{
			Why:  "contain says the problem is alive: messages are still failing into the DLQ",
			Todo: "stop the bleeding first — pause the consumer's mapping (mfdlq contain --queue " + f.Queue + " --pause-mapping) or roll back; the redrive can wait",
		}, nil
	}
	if err != nil {
		return nil, err
	}
	f.Env.Next("inspect: look at the messages")
	return nil, nil
}

// changes looks at what changed around the first failure, for classify's
// evidence and the report. It only reads: whatever it could not read (no
// CloudTrail permission, another region's history), the runbook goes on.
func (f *Flow) changes(ctx context.Context) {
	if err := f.Env.Run(ctx, StepChanges); err != nil {
		f.Env.Warn("changes could not read everything (%v): the runbook goes on without it", err)
		return
	}
	f.verdict(StepChanges, string(f.Env.State().Changes))
}

// classify names what comes next by the verdict; the fix step acts on it.
func (f *Flow) classify(ctx context.Context) error {
	if err := f.Env.Run(ctx, StepClassify); err != nil {
		return err
	}
	v := f.Env.State().Classify
	f.verdict(StepClassify, string(v))
	switch {
	case v == classify.VerdictTransient:
		f.Env.Next("once the dependency is healthy, redrive")
	case v.NeedsFix():
		f.Env.Next("fix the consumer (or the data), record it (--fixed), then redrive")
	default:
		f.Env.Next("logs: the consumer's exception tells what classify could not")
	}
	return nil
}

// fix records what was changed (--fixed, or the operator's answer), or
// stops when the DLQ holds poison (or bad data) and nothing was fixed: a
// redrive would send every message back into the same failure.
func (f *Flow) fix() (*Stop, error) {
	fixed := f.Fixed
	verdict := f.Env.State().Classify
	// An unknown verdict is no proof that the messages are fine: the
	// runbook stops before the redrive as it does for poison, unless a
	// fix is recorded (the redrive guard asks the same).
	unproven := verdict == classify.VerdictUnknown
	if fixed == "" && !f.Unattended && (verdict.NeedsFix() || unproven) {
		f.Env.Info("classify says %s: the consumer (or the data) must change before a redrive.", verdict)
		fixed = f.Env.Ask("What was changed? (Enter if nothing yet)")
	}
	if fixed == "" {
		if verdict.NeedsFix() {
			return &Stop{
				Why:  "classify says " + string(verdict) + " and no fix is recorded: a redrive now sends every message back into the same failure",
				Todo: "fix the consumer (or the data at source), then run the runbook again with --fixed \"what changed\"",
			}, nil
		}
		if unproven {
			return &Stop{
				Why:  "classify says unknown — no proof of what failed, only a timing clue — and no fix is recorded: a redrive now may send every message back into the same failure",
				Todo: "prove what failed (mfdlq logs, or mfdlq classify with --expect FIELD=VALUE or --baseline FILE), then run the runbook again (with --fixed \"what changed\" once something was changed)",
			}, nil
		}
		if verdict == "" {
			f.Env.Info("no fix recorded; classify has not run")
		} else {
			f.Env.Info("no fix recorded; classify says %s", verdict)
		}
		return nil, nil
	}
	if err := f.Env.RecordFix(fixed); err != nil {
		return nil, err
	}
	f.Env.Info("fix recorded: %s", fixed)
	f.Env.Next("redrive at --rate %s", f.Rate)
	return nil, nil
}

// redrive stops on the redrive's own "no": its canary came back, or the
// move was not confirmed.
func (f *Flow) redrive(ctx context.Context) (*Stop, error) {
	err := f.Env.Run(ctx, StepRedrive)
	if f.Env.Refused(err) {
		return &Stop{
			Why:  "redrive: " + err.Error(),
			Todo: "read the reason above: if moved messages came back, the fix is not the right one — back to step 2 (mfdlq classify); if it was not confirmed, run mfdlq redrive yourself when ready",
		}, nil
	}
	if err != nil {
		return nil, err
	}
	f.Env.Next("verify: the DLQ reached zero and nothing came back")
	return nil, nil
}

// verify stops the runbook on a failure, with verify's evidence above it.
func (f *Flow) verify(ctx context.Context) (*Stop, error) {
	if !f.Env.State().Redriven {
		f.Env.Info("no redrive in this incident: nothing to verify")
		return nil, nil
	}
	err := f.Env.Run(ctx, StepVerify)
	v := f.Env.State().Verify
	f.verdict(StepVerify, string(v))
	if v == verify.NotProven {
		// Not a failure: going back to step 2 would undo a fix that may
		// hold; looking longer is what proves it.
		return &Stop{
			Why:  "verify did not prove the fix within its wait: nothing came back and no check failed, but what would prove it had not held yet",
			Todo: "run mfdlq verify again with a longer --wait (its reasons say what must still hold); do not go back to step 2 on this",
		}, nil
	}
	if v == verify.Fail || f.Env.Refused(err) {
		return &Stop{
			Why:  "verify failed: the DLQ did not reach zero, or moved messages came back",
			Todo: "stop and go back to step 2 (mfdlq inspect, mfdlq classify): the fix was not the right one",
		}, nil
	}
	return nil, err
}
