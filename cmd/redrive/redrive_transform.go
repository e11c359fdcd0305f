package redrive

import (
	"context"

	"github.com/mfdlq/mfdlq/incident"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
)

// printTransformPlan shows what --transform will do before anything
// moves (redrive.TransformPlanLines): the program, a redacted
// before/after of the first messages the selection picks, the SNS
// signature line when they hold notifications, and the undo command.
func (o *RedriveOptions) printTransformPlan(ctx context.Context, env *redrivestep.Env, ws *incident.Workspace, p *redrivestep.Plan) error {
	lines, err := redrivestep.TransformPlanLines(ctx, env, p, ws)
	for _, l := range lines {
		o.deps.Infof("%s", l)
	}
	return err
}
