package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
	switch {
	case p.Req.Keep && p.Source.File == nil:
		undo = transform.KeepUndo
	case undo == "":
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
	pv, pos, cut, lim := transform.NewPreview(p.Req.Transform), 0, 0, p.TransformLimits()
	n, err := o.scanSelection(ctx, env, p, func(m *sqsjson.Message) {
		pos++
		r := p.Req.Transform.Apply(ctx, m, lim)
		if r.Interrupted {
			cut++ // Ctrl-C came while the program ran on it: no verdict
			return
		}
		pv.Add(pos, m, r)
	})
	if errors.Is(err, errNoScan) {
		return nil
	}
	f := pv.Figures()
	counts := fmt.Sprintf("%d changed, %d unchanged, %d failed (they would stay in the DLQ)", f.Changed, f.Unchanged, f.Failed)
	if errors.Is(err, errScanInterrupted) {
		d.infof("dry run: %s: %s so far", o.scanCut(p, n-cut), counts)
	} else if err == nil {
		d.infof("dry run: the whole selection, %s read and made visible again: %s", plural.Of(n, "message"), counts)
	}
	for _, t := range f.FailureTexts {
		d.infof("dry run: failed: %s", t)
	}
	return err
}
