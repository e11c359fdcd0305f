package redrive

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive/consumer"
	"github.com/mfdlq/mfdlq/untrusted"
)

// Guard applies the incident's guardrails before anything changes: a
// poison group without a fix, a problem still alive, a consumer whose fix
// is not deployed, a canary into a paused consumer. It numbers the
// attempt on the way (p.Attempt, p.NewFix), reads the destination's
// consumers, and weighs a native FIFO move's doubt. A guardrail refuses
// with a *Refusal, unless Req.Force: then it is said as a warning (the
// paused consumer excepted: --canary 0 is its way past). It compiles the
// selection first (Plan.Select): a shared DLQ's sample is counted under it.
func Guard(ctx context.Context, env *Env, ws *incident.Workspace, p *Plan) error {
	if err := p.compileSelection(ws); err != nil {
		return err
	}
	events, err := ws.Events()
	if err != nil {
		return fmt.Errorf("read incident: %w", err)
	}
	r := p.Req
	p.NewFix = r.Fixed != "" && r.Fixed != LatestFix(events)
	withFix := events
	if p.NewFix {
		withFix = append(append([]incident.Event(nil), events...), incident.Event{Step: incident.StepFix})
	}
	p.Attempt = Attempt(withFix)
	if r.Fixed != "" && !p.NewFix {
		env.Info("--fixed: %q is the latest fix recorded already: still attempt %d", untrusted.Shorten(untrusted.Terminal(r.Fixed), 200), p.Attempt)
	}
	if p.Attempt > 1 {
		env.Info("attempt %d: a new fix after an earlier redrive; messages that came back from attempt %d may move again", p.Attempt, p.Attempt-1)
	}
	groups := classifiedGroups(ws)
	_, gated, _ := deployReference(events, groups, r.Group, p.Attempt, env.Now())
	p.reads = startReads(ctx, env, p, gated || r.IdempotencyTable == "")
	if rf := Guardrails(GuardInput{Before: env.Before(events), Groups: groups, Fixed: r.Fixed, Group: r.Group}); rf != nil {
		if err := refuse(env, r, rf); err != nil {
			return err
		}
	}
	if err := checkMoveTasks(ctx, env, p, false); err != nil {
		return err
	}
	if err := checkNarrowed(env, p); err != nil {
		return err
	}
	if r.Native {
		p.FIFODoubt = fifoDoubt(events, p, env.Now())
	}
	if err := fixDeployed(ctx, env, events, groups, p); err != nil {
		return err
	}
	if err := consumersLive(ctx, env, p); err != nil {
		return err
	}
	return checkWindow(ctx, env, p)
}

// refuse stops the redrive with r, or with --force says it and goes on.
func refuse(env *Env, req Request, r *Refusal) error {
	if !req.Force {
		return r
	}
	env.Warn("--force: %s", r.Reason)
	return nil
}

// classifiedGroups reads classification.json's groups; nil when the
// incident has none or it cannot be read (the guardrails fall back on the
// verdict).
func classifiedGroups(ws *incident.Workspace) []Group {
	c, err := classify.Load(ws)
	if err != nil {
		return nil
	}
	out := make([]Group, 0, len(c.Groups))
	for _, g := range c.Groups {
		out = append(out, Group{ID: g.ID, Verdict: g.Verdict, Count: g.Count, FirstSent: g.FirstSent})
	}
	return out
}

// fixDeployed refuses to move poison or data groups back into a Lambda
// consumer that has not changed since they began to fail (or since the
// previous attempt): the most common 3 a.m. mistake. --fixed alone does
// not pass it, --force does. What it could not check, it says.
func fixDeployed(ctx context.Context, env *Env, events []incident.Event, groups []Group, p *Plan) error {
	dep, gated, why := deployReference(events, groups, p.Req.Group, p.Attempt, env.Now())
	if !gated {
		env.Info("fix deployed: not checked: %s", why)
		return nil
	}
	for i := range p.Dests {
		if err := destDeployed(ctx, env, dep, p, &p.Dests[i]); err != nil {
			return err
		}
	}
	return nil
}

// destDeployed is the fix-deployed check of one destination.
func destDeployed(ctx context.Context, env *Env, dep consumer.Deploy, p *Plan, d *Destination) error {
	if kind := TargetKindOf(d.Queue.URL); d.Target != nil && kind != KindLambda {
		env.Info("fix deployed: not checked: mfdlq cannot see when the consumers behind %s (its %s) changed", d.Queue.Name, map[string]string{KindSNS: "subscriptions", KindEvents: "rules' targets"}[kind])
		return nil
	}
	fns, err := p.reads.consumersOf(ctx, env, d)
	if err != nil {
		env.Warn("fix deployed: not checked: the Lambda consumers of %s cannot be read (%s)", d.Queue.Name, untrusted.Shorten(untrusted.Terminal(err.Error()), 200))
		return nil
	}
	d.Consumers = fns
	if len(fns) == 0 {
		env.Info("fix deployed: not checked: no Lambda event source mapping reads %s, and mfdlq cannot see when another consumer changed", d.Queue.Name)
		return nil
	}
	for _, f := range fns {
		if !dep.Deployed(f) {
			return refuse(env, p.Req, &Refusal{Reason: dep.NotDeployed(f)})
		}
		env.Info("fix deployed: %s changed since %s (version %s, last modified %s)", f.Name, dep.SinceText, f.Version, f.LastModified.Format(time.RFC3339))
	}
	return nil
}

// deployReference is what the consumer must have changed since: the
// previous attempt's redrive, else the first failure of the poison and data
// groups about to move. gated is false, with why, when nothing is to check.
func deployReference(events []incident.Event, groups []Group, only string, attempt int, now time.Time) (dep consumer.Deploy, gated bool, why string) {
	if prev, ok := PreviousAttempt(events, attempt); ok {
		since := prev.Time
		if t := FiguresOf(prev).StartedAt; !t.IsZero() {
			since = t
		}
		base := consumer.FirstSeen(events)
		for _, f := range consumer.FunctionsOf(prev) {
			base[f.ARN] = f
		}
		return consumer.Deploy{Since: since, SinceText: "attempt " + fmt.Sprint(attempt-1) + "'s redrive (" + consumer.When(since, now) + ")", Baseline: base}, true, ""
	}
	first, gated, why := firstFailure(events, groups, only)
	if !gated {
		return dep, false, why
	}
	return consumer.Deploy{Since: first, SinceText: "the first failure (" + consumer.When(first, now) + ")", Baseline: consumer.FirstSeen(events)}, true, ""
}

// firstFailure is when the groups to move that need a fix (the verdict
// says which: classify.Verdict.NeedsFix) began to fail: their first
// SentTimestamp, else the incident's first step.
func firstFailure(events []incident.Event, groups []Group, only string) (time.Time, bool, string) {
	var first time.Time
	gated, unknown := false, false
	for _, g := range groups {
		if only != "" && g.ID != only {
			continue
		}
		if !g.Verdict.NeedsFix() {
			// An unknown group asks for --fixed (Guardrails) but no deploy:
			// a dependency that recovered is none.
			unknown = unknown || g.Verdict == classify.VerdictUnknown
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
	case !gated && unknown:
		return first, false, "the groups to move are transient or unknown, and a recovered dependency is no deploy"
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
func destConsumers(ctx context.Context, env *Env, d *Destination) ([]consumer.Function, error) {
	if env.Lambda == nil {
		return nil, errors.New("no Lambda client")
	}
	l, err := env.Lambda(ctx)
	if err != nil {
		return nil, err
	}
	if d.Target != nil {
		f, err := consumer.ReadFunction(ctx, l, d.Queue.ARN, env.Now())
		if err != nil {
			return nil, err
		}
		return []consumer.Function{f}, nil
	}
	return consumer.Consumers(ctx, l, d.Queue.ARN, env.Now())
}

// fifoDedupWindow is SQS's FIFO deduplication interval: a send whose
// deduplication id the queue saw within it is accepted and dropped.
const fifoDedupWindow = 5 * time.Minute

// fifoDoubt says why a native move of a FIFO DLQ could be silently
// deduplicated at the destination, or "": SQS gave each message, when it
// entered the FIFO DLQ, its original MessageId as deduplication id, and a
// move task sends it with that id; when this incident sent to the
// destination within the deduplication window, mfdlq cannot tell those
// ids apart from the ones just sent.
func fifoDoubt(events []incident.Event, p *Plan, now time.Time) string {
	dlq, dest := p.Source.Queue, p.Dest().Queue
	if !dlq.FIFO {
		return ""
	}
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		if f := FiguresOf(ev); ev.Step != "redrive" || (f.DestURL != dest.URL && f.DestQueue != dest.Name) {
			continue
		}
		if now.Sub(ev.Time) < fifoDedupWindow {
			return fmt.Sprintf("this incident moved messages to %s %s ago, within FIFO's 5-minute deduplication window", dest.Name, now.Sub(ev.Time).Round(time.Second))
		}
		break
	}
	return ""
}
