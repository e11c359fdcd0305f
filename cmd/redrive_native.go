package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// nativePoll is how often --native asks SQS how far the task got.
var nativePoll = 2 * time.Second

// runNative lets SQS move the messages (StartMessageMoveTask) and follows
// the task; Ctrl-C cancels it.
func (o *redriveOptions) runNative(ctx context.Context, client sqsapi.Client, ws *runbook.Workspace, p *redrivePlan) error {
	d := o.deps
	started, wall := d.Now(), time.Now()
	prog := &redriveProgress{d: d, total: p.backlog, start: wall}
	st, err := redrive.Native(ctx, client, p.dlq, p.dest, int32(o.Rate), nativePoll, func(t redrive.TaskStatus) {
		prog.update(redrive.Stats{Moved: int(t.Moved)})
	})
	prog.finish()
	if err != nil {
		return err
	}
	d.infof("message move task %s", st.Status)
	stats := redrive.Stats{Moved: int(st.Moved)}
	if st.Status == redrive.TaskFailed {
		stats.LastError = st.Failure
		stats.Halted = "message move task failed: " + st.Failure
	}
	return o.done(ctx, ws, p, started, wall, stats, nil)
}

// selector compiles the selection; --group reads the incident's
// classification.json.
func (o *redriveOptions) selector(ws *runbook.Workspace) (func(*sqsjson.Message) (bool, error), error) {
	s := o.selection
	if s.Group != "" {
		of, err := groupOf(ws, s.Group)
		if err != nil {
			return nil, err
		}
		s.GroupOf = of
	}
	return s.Compile()
}

// groupOf is filled in when the classify step's export lands.
var groupOf = func(ws *runbook.Workspace, group string) (func(*sqsjson.Message) string, error) {
	return nil, usageErrorf("--group %s: classification groups are not readable yet; use --filter", group)
}

// printJSONLine writes v as one compact JSON line (a streamed record).
func (d *Deps) printJSONLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(d.IO.Out, string(b))
	return err
}
