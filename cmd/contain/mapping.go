package contain

import (
	"context"
	"fmt"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	containstep "github.com/mfdlq/mfdlq/contain"

	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// mappings lists the Lambda mappings reading src. Without a source there is
// nothing to list; a Lambda API that is denied is a warning, unless a change
// was asked for.
func (o *ContainOptions) mappings(ctx context.Context, src *sqsapi.Queue) ([]lambdaapi.Mapping, error) {
	if src == nil {
		return []lambdaapi.Mapping{}, nil
	}
	d := o.deps
	l, err := d.Lambda(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := lambdaapi.Mappings(ctx, l, src.Name, src.ARN, int64(src.Visibility.Seconds()))
	if err != nil {
		if sqsapi.IsUnsupportedOrDenied(err) && o.action() == "" {
			d.Warnf("Lambda mappings unknown: %v", err)
			return []lambdaapi.Mapping{}, nil
		}
		return nil, err
	}
	return ms, nil
}

// changeMapping pauses, caps or resumes one mapping: it names the account,
// region, queue and mapping, shows the change, asks, makes it, and records
// the state before so --resume-mapping can put it back.
func (o *ContainOptions) changeMapping(ctx context.Context, dlq, src *sqsapi.Queue, ms []lambdaapi.Mapping) (*lambdaapi.MappingChange, error) {
	d := o.deps
	if src == nil {
		return nil, cmdutil.UsageErrorf("no source queue to act on: pass --source")
	}
	m, err := lambdaapi.Pick(ms, o.UUID)
	if err != nil {
		return nil, cmdutil.UsageErrorf("%v", err)
	}
	var restore *lambdaapi.MappingState
	if o.action() == lambdaapi.ActionResume {
		if restore, err = o.recorded(dlq, m.UUID); err != nil {
			return nil, err
		}
	}
	change, err := lambdaapi.Plan(o.action(), m, int32(o.Cap), restore)
	if err != nil {
		return nil, cmdutil.UsageErrorf("%v", err)
	}
	change.DryRun = o.DryRun
	d.Announce(actionVerb(change.Action), src)
	if p := change.After.Pollers; change.Action == lambdaapi.ActionCap && p != nil {
		d.Infof("mapping %s is in provisioned mode, where Lambda refuses MaximumConcurrency: --cap-concurrency %d sets MaximumPollers to %d instead (each poller runs up to %d invocations at once: at most %d)",
			m.UUID, o.Cap, p.Max, lambdaapi.InvocationsPerPoller, p.MaxConcurrency())
	}
	fmt.Fprintf(d.IO.ErrOut, "mapping %s → function %s\n  now:   %s\n  after: %s\n", cmdutil.SafeArgs([]any{m.UUID, m.FunctionARN, change.Before, change.After})...)
	if o.DryRun {
		d.Infof("dry run: the mapping was not changed")
		return &change, nil
	}
	if err := d.Confirm(fmt.Sprintf("%s mapping %s of %s?", actionVerb(change.Action), m.UUID, m.Function), o.Yes); err != nil {
		return nil, err
	}
	l, err := d.Lambda(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := lambdaapi.Apply(ctx, l, change); err != nil {
		return nil, err
	}
	// Recorded at once: a failure later in the run must not lose the state
	// --resume-mapping needs.
	if err := o.recordChange(dlq, change); err != nil {
		return nil, err
	}
	d.Infof("mapping %s: %s", m.UUID, change.After)
	return &change, nil
}

func actionVerb(action string) string {
	switch action {
	case lambdaapi.ActionPause:
		return "pausing"
	case lambdaapi.ActionCap:
		return "capping"
	}
	return "resuming"
}

// recorded is the state to restore, from this incident's contain events.
func (o *ContainOptions) recorded(dlq *sqsapi.Queue, uuid string) (*lambdaapi.MappingState, error) {
	ws, err := o.deps.Workspace(dlq.Name)
	if err != nil {
		return nil, err
	}
	events, err := ws.Events()
	if err != nil {
		return nil, err
	}
	changes, err := containstep.Changes(events)
	if err != nil {
		return nil, err
	}
	st, err := lambdaapi.Recorded(changes, uuid)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, cmdutil.UsageErrorf("nothing to resume: incident %s recorded no pause or cap of mapping %s (pass the same --incident as the pause)", ws.Dir, uuid)
	}
	return st, nil
}

// recordChange appends the change as its own contain event.
func (o *ContainOptions) recordChange(dlq *sqsapi.Queue, c lambdaapi.MappingChange) error {
	d := o.deps
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return err
	}
	ev := d.Event("contain", dlq)
	if err := ev.Set(o.inputs(), containstep.ChangeFigures{MappingChange: &c}); err != nil {
		return err
	}
	return ws.Append(ev)
}

func (o *ContainOptions) inputs() containstep.Inputs {
	return containstep.Inputs{
		Source: o.Source, Window: o.Window.String(), Action: o.action(),
		CapConcurrency: max(o.Cap, 0), Mapping: o.UUID, DryRun: o.DryRun,
	}
}
