package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/untrusted"
)

// guard applies the incident's guardrails before anything changes: a
// poison group without a fix, a problem still alive, a consumer whose fix
// is not deployed. It numbers the attempt on the way.
func (o *redriveOptions) guard(ctx context.Context, ws *incident.Workspace, p *redrivePlan) error {
	d := o.deps
	events, err := ws.Events()
	if err != nil {
		return fmt.Errorf("read incident: %w", err)
	}
	p.newFix = o.Fixed != "" && o.Fixed != redrive.LatestFix(events)
	withFix := events
	if p.newFix {
		withFix = append(append([]incident.Event(nil), events...), incident.Event{Step: incident.StepFix})
	}
	p.attempt = redrive.Attempt(withFix)
	if o.Fixed != "" && !p.newFix {
		d.infof("--fixed: %q is the latest fix recorded already: still attempt %d", untrusted.Shorten(untrusted.Terminal(o.Fixed), 200), p.attempt)
	}
	if p.attempt > 1 {
		d.infof("attempt %d: a new fix after an earlier redrive; messages that came back from attempt %d may move again", p.attempt, p.attempt-1)
	}
	groups, err := classifiedGroups(ws)
	if err != nil {
		return err
	}
	if r := redrive.Guardrails(redrive.GuardInput{Before: runbook.StateOf(events).BeforeRedrive(), Groups: groups, Fixed: o.Fixed, Group: o.Group}); r != nil {
		if err := o.refuse(r); err != nil {
			return err
		}
	}
	return o.fixDeployed(ctx, events, groups, p)
}

func (o *redriveOptions) refuse(r *redrive.Refusal) error {
	if !o.Force {
		return checkFailedf("refusing: %s", r.Reason)
	}
	o.deps.warnf("--force: %s", r.Reason)
	return nil
}

// classifiedGroups reads classification.json's groups; nil when the
// incident has none.
func classifiedGroups(ws *incident.Workspace) ([]redrive.Group, error) {
	c, err := loadClassification(ws)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, nil // unreadable: the guardrails fall back on the verdict
	}
	out := make([]redrive.Group, 0, len(c.Groups))
	for _, g := range c.Groups {
		out = append(out, redrive.Group{ID: g.ID, Verdict: g.Verdict, Count: g.Count, FirstSent: g.FirstSent})
	}
	return out, nil
}

// fixDeployed refuses to move poison or data groups back into a Lambda
// consumer that has not changed since they began to fail (or since the
// previous attempt): the most common 3 a.m. mistake. --fixed alone does
// not pass it, --force does. What it could not check, it says.
func (o *redriveOptions) fixDeployed(ctx context.Context, events []incident.Event, groups []redrive.Group, p *redrivePlan) error {
	d := o.deps
	dep, gated, why := o.deployReference(events, groups, p.attempt)
	if !gated {
		d.infof("fix deployed: not checked: %s", why)
		return nil
	}
	if kind := targetOf(p.dest.URL); p.target != nil && kind != targetLambda {
		d.infof("fix deployed: not checked: mfdlq cannot see when the consumers behind %s (its %s) changed", p.dest.Name, map[string]string{targetSNS: "subscriptions", targetEvents: "rules' targets"}[kind])
		return nil
	}
	fns, err := o.destConsumers(ctx, p)
	if err != nil {
		d.warnf("fix deployed: not checked: the Lambda consumers of %s cannot be read (%s)", p.dest.Name, untrusted.Shorten(untrusted.Terminal(err.Error()), 200))
		return nil
	}
	p.consumers = fns
	if len(fns) == 0 {
		d.infof("fix deployed: not checked: no Lambda event source mapping reads %s, and mfdlq cannot see when another consumer changed", p.dest.Name)
		return nil
	}
	for _, f := range fns {
		if !dep.Deployed(f) {
			return o.refuse(dep.Refusal(f, d.Now()))
		}
		d.infof("fix deployed: %s changed since %s (version %s, last modified %s)", f.Name, dep.SinceText, f.Version, f.LastModified.Format(time.RFC3339))
	}
	return nil
}

// deployReference is what the consumer must have changed since: the
// previous attempt's redrive, else the first failure of the poison and data
// groups about to move. gated is false, with why, when nothing is to check.
func (o *redriveOptions) deployReference(events []incident.Event, groups []redrive.Group, attempt int) (dep redrive.Deploy, gated bool, why string) {
	now := o.deps.Now()
	if prev, ok := redrive.PreviousAttempt(events, attempt); ok {
		since := prev.Time
		if t, err := time.Parse(time.RFC3339, figString(prev.Figures, "started_at")); err == nil {
			since = t
		}
		base := redrive.FirstSeen(events)
		for _, f := range redrive.FunctionsOf(prev) {
			base[f.ARN] = f
		}
		return redrive.Deploy{Since: since, SinceText: "attempt " + fmt.Sprint(attempt-1) + "'s redrive (" + redrive.When(since, now) + ")", Baseline: base}, true, ""
	}
	first, gated, why := firstFailure(events, groups, o.Group)
	if !gated {
		return dep, false, why
	}
	return redrive.Deploy{Since: first, SinceText: "the first failure (" + redrive.When(first, now) + ")", Baseline: redrive.FirstSeen(events)}, true, ""
}

// firstFailure is when the groups to move that need a fix (the verdict
// says which: classify.Verdict.NeedsFix) began to fail: their first
// SentTimestamp, else the incident's first step.
func firstFailure(events []incident.Event, groups []redrive.Group, only string) (time.Time, bool, string) {
	var first time.Time
	gated := false
	for _, g := range groups {
		if (only != "" && g.ID != only) || !g.Verdict.NeedsFix() {
			continue
		}
		gated = true
		if !g.FirstSent.IsZero() && (first.IsZero() || g.FirstSent.Before(first)) {
			first = g.FirstSent
		}
	}
	if groups == nil {
		if ev, ok := latestStep(events, incident.StepClassify); ok && classify.Verdict(ev.Verdict).NeedsFix() {
			gated = true
		}
	}
	switch {
	case !gated && groups == nil:
		return first, false, "no classification in this incident (run mfdlq classify to check the consumer against the first failure)"
	case !gated:
		return first, false, "the groups to move are transient"
	case first.IsZero() && len(events) > 0:
		first = events[0].Time
	}
	return first, true, ""
}

func latestStep(events []incident.Event, step string) (incident.Event, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Step == step {
			return events[i], true
		}
	}
	return incident.Event{}, false
}

// destConsumers reads the Lambda functions that consume the destination:
// the mappings' functions of a queue, or the function a lambda: target
// invokes.
func (o *redriveOptions) destConsumers(ctx context.Context, p *redrivePlan) ([]redrive.Function, error) {
	d := o.deps
	if d.Lambda == nil {
		return nil, errors.New("no Lambda client")
	}
	l, err := d.Lambda(ctx)
	if err != nil {
		return nil, err
	}
	if p.target != nil {
		f, err := redrive.ReadFunction(ctx, l, p.dest.ARN, d.Now())
		if err != nil {
			return nil, err
		}
		return []redrive.Function{f}, nil
	}
	return redrive.Consumers(ctx, l, p.dest.ARN, d.Now())
}
