package cmdutil

import (
	"context"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive/consumer"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// NoteConsumers records, once per function, the Lambda functions reading
// the DLQ's source queues as this incident first sees them (Version,
// CodeSha256, LastModified): redrive later counts a changed CodeSha256 or
// Version as the fix deployed. It is best effort and silent: a role that
// may not read Lambda, or a source without a mapping, records nothing, and
// the step it runs in goes on as before.
func (d *Deps) NoteConsumers(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, step string) {
	if d.Lambda == nil || dlq == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return
	}
	events, err := ws.Events()
	if err != nil {
		return
	}
	known := consumer.FirstSeen(events)
	srcs, err := sqsapi.SourceQueues(ctx, c, dlq)
	if err != nil || len(srcs) == 0 {
		return
	}
	l, err := d.Lambda(ctx)
	if err != nil {
		return
	}
	fresh := []consumer.Function{}
	for _, s := range srcs {
		fs, err := consumer.Consumers(ctx, l, s.ARN, d.Now())
		if err != nil {
			return
		}
		for _, f := range fs {
			if _, ok := known[f.ARN]; !ok {
				known[f.ARN] = f
				fresh = append(fresh, f)
			}
		}
	}
	if len(fresh) == 0 {
		return
	}
	// No command line: the step's own event names it, and the report's
	// list of commands must not show it twice.
	ev := incident.Event{Step: consumer.Step, Time: d.Now().UTC(), Queue: dlq.Name, QueueURL: dlq.URL,
		Account: dlq.Account, Region: dlq.Region}
	if ev.SetInputs(consumer.Inputs{SeenBy: step}) != nil || ev.SetFigures(consumer.Figures{Consumers: fresh}) != nil {
		return
	}
	_ = ws.Append(ev)
}
