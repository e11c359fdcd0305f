package redrive

import (
	"context"
	"strings"

	"github.com/mfdlq/mfdlq/incident"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
)

// printTransformPlan shows what --transform will do before anything
// moves: the program, a redacted before/after of the first messages the
// selection picks (read without hiding them), the SNS signature line when
// they hold notifications, and the undo command.
func (o *RedriveOptions) printTransformPlan(ctx context.Context, env *redrivestep.Env, ws *incident.Workspace, p *redrivestep.Plan) error {
	if p.Transform == nil {
		return nil
	}
	d := o.deps
	f, sns, err := redrivestep.PreviewTransform(ctx, env, p)
	if err != nil {
		return err
	}
	for _, l := range p.TransformLines(f, sns, ws) {
		d.Infof("plan: %s", l)
	}
	var b strings.Builder
	f.WriteExamples(&b)
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if l != "" {
			d.Infof("preview:%s", l)
		}
	}
	return nil
}
