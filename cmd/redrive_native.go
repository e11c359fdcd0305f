package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// nativePoll is how often --native asks SQS how far the task got.
var nativePoll = 2 * time.Second

// runNative lets SQS move the messages (StartMessageMoveTask) and follows
// the task; Ctrl-C cancels it.
func (o *redriveOptions) runNative(ctx context.Context, client sqsapi.Client, ws *incident.Workspace, p *redrivePlan) error {
	d := o.deps
	if why := o.fifoDoubt(ws, p); why != "" {
		d.warnf("--native on FIFO: %s; moving with mfdlq's own mover instead, which sends with fresh mfdlq-<MessageId> deduplication ids", why)
		o.Native = false
		return o.move(ctx, client, ws, p)
	}
	started, wall := d.Now(), time.Now()
	prog := &redriveProgress{d: d, total: p.backlog, start: wall}
	st, err := redrive.Native(ctx, client, p.dlq, p.dest, int32(o.Rate), nativePoll, func(t redrive.TaskStatus) {
		prog.update(redrive.Stats{Moved: int(t.Moved)})
	})
	prog.finish()
	if err != nil && st.Handle == "" && p.dlq.FIFO && !sqsapi.IsUnsupportedOrDenied(err) && sqsapi.ErrorCode(err) != "error" {
		// SQS refused a task for this FIFO queue before moving anything.
		d.warnf("--native on FIFO: %v; moving with mfdlq's own mover instead (fresh mfdlq-<MessageId> deduplication ids)", err)
		o.Native = false
		return o.move(ctx, client, ws, p)
	}
	if err != nil {
		return err
	}
	d.infof("message move task %s", st.Status)
	stats := redrive.Stats{Moved: int(st.Moved)}
	if st.Status == redrive.TaskFailed {
		stats.LastError = st.Failure
		stats.Halted = "message move task failed: " + st.Failure
	}
	return o.done(ctx, ws, p, started, wall, stats, 0, nil)
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
func (o *redriveOptions) fifoDoubt(ws *incident.Workspace, p *redrivePlan) string {
	if !p.dlq.FIFO {
		return ""
	}
	events, err := ws.Events()
	if err != nil {
		return "the incident cannot be read to rule out a recent move"
	}
	now := o.deps.Now()
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		if f := redrive.FiguresOf(ev); ev.Step != "redrive" || (f.DestURL != p.dest.URL && f.DestQueue != p.dest.Name) {
			continue
		}
		if now.Sub(ev.Time) < fifoDedupWindow {
			return fmt.Sprintf("this incident moved messages to %s %s ago, within FIFO's 5-minute deduplication window", p.dest.Name, now.Sub(ev.Time).Round(time.Second))
		}
		break
	}
	return ""
}

// selector compiles the selection; --group reads the incident's
// classification.json.
func (o *redriveOptions) selector(ws *incident.Workspace) (func(*sqsjson.Message) (bool, error), error) {
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

// groupOf reads the incident's classification.json (and logs.json, whose
// signatures classify grouped by when it had them) and returns the group id
// of a message, decided exactly as classify did.
func groupOf(ws *incident.Workspace, group string) (func(*sqsjson.Message) string, error) {
	c, err := loadClassification(ws)
	if err != nil {
		return nil, usageErrorf("--group %s: no readable %s in %s: run mfdlq classify first (%v)", group, incident.ClassificationFile, ws.Dir, err)
	}
	if _, ok := c.Group(group); !ok {
		ids := make([]string, 0, len(c.Groups))
		for _, g := range c.Groups {
			ids = append(ids, g.ID)
		}
		return nil, usageErrorf("--group %s: no such group in %s; groups: %s", group, incident.ClassificationFile, strings.Join(ids, ", "))
	}
	sigs, err := logSignatures(ws)
	if err != nil {
		sigs = nil // no logs step: classify grouped by the message attributes
	}
	return func(m *sqsjson.Message) string {
		if g, ok := c.GroupOf(m, sigs); ok {
			return g.ID
		}
		return ""
	}, nil
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
