package cmd

import (
	"context"
	"strings"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/transform"
)

// printTransformPlan shows what --transform will do before anything
// moves: the program, a redacted before/after of the first messages the
// selection picks (read without hiding them), the SNS signature line when
// they hold notifications, and the undo command.
func (o *redriveOptions) printTransformPlan(ctx context.Context, env *redrive.Env, ws *incident.Workspace, p *redrive.Plan) error {
	if p.Req.Transform == nil {
		return nil
	}
	d := o.deps
	f, sns, err := redrive.PreviewTransform(ctx, env, p)
	if err != nil {
		return err
	}
	undo := p.UndoCommand(ws)
	if undo == "" {
		undo = "the export " + o.FromFile + " is the originals (it never changes)"
	}
	for _, l := range transform.PlanLines(f, sns, undo) {
		d.infof("plan: %s", strings.TrimLeft(l, " "))
	}
	var b strings.Builder
	f.WriteExamples(&b)
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if l != "" {
			d.infof("preview:%s", l)
		}
	}
	return nil
}

// discard is an export Sink that keeps nothing: a dry run's scan.
type discard struct{}

func (discard) Write(p []byte) (int, error)            { return len(p), nil }
func (discard) Commit(context.Context) (string, error) { return "", nil }
func (discard) Abort()                                 {}
func (discard) Size() int64                            { return 0 }
func (discard) SHA256() string                         { return "" }

// dryRunTransform runs the program over the whole selection without
// moving anything: the messages are read as an export without --delete
// reads them (held while read, every one made visible again at the end),
// and none is written anywhere.
func (o *redriveOptions) dryRunTransform(ctx context.Context, env *redrive.Env, p *redrive.Plan) error {
	if p.Req.Transform == nil {
		return nil
	}
	d := o.deps
	var sel func(*sqsjson.Message) (bool, error)
	if p.Req.Selector != nil {
		var err error
		if sel, err = p.Req.Selector(); err != nil {
			return err
		}
	}
	var c archive.SQS = env.SQS
	if p.Source.File != nil {
		fc, ok := p.Source.File.(archive.SQS)
		if !ok {
			return nil
		}
		c = fc
	}
	pv, pos, lim := transform.NewPreview(p.Req.Transform), 0, p.TransformLimits()
	st, err := archive.Export(ctx, c, discard{}, archive.Options{Queue: p.Source.Queue, Backlog: int(p.Backlog), Select: func(m *sqsjson.Message) (bool, error) {
		if sel != nil {
			if ok, err := sel(m); err != nil || !ok {
				return false, nil
			}
		}
		pos++
		pv.Add(pos, m, p.Req.Transform.Apply(ctx, m, lim))
		return false, nil
	}})
	if err != nil {
		return err
	}
	f := pv.Figures()
	d.infof("dry run: the whole selection, %s read and made visible again: %d changed, %d unchanged, %d failed (they would stay in the DLQ)",
		plural.Of(st.Received, "message"), f.Changed, f.Unchanged, f.Failed)
	for _, t := range f.FailureTexts {
		d.infof("dry run: failed: %s", t)
	}
	return nil
}
