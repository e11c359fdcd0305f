package consumer

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// NoteSeen records in ws, once per function, the Lambda functions reading
// dlq's source queues as the incident first sees them (Version,
// CodeSha256, LastModified), in a consumer event whose inputs name the
// step seenBy: redrive later counts a changed CodeSha256 or Version as the
// fix deployed (Deploy). It is best effort and silent: a role that may not
// read Lambda (client, built only when a source has a mapping to read), or
// a source without a mapping, records nothing, and the step it runs in
// goes on as before.
func NoteSeen(ctx context.Context, ws *incident.Workspace, c sqsapi.Client, client func(context.Context) (*lambda.Client, error),
	dlq *sqsapi.Queue, seenBy string, now time.Time) {
	if client == nil || dlq == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	events, err := ws.Events()
	if err != nil {
		return
	}
	known := FirstSeen(events)
	srcs, err := sqsapi.SourceQueues(ctx, c, dlq)
	if err != nil || len(srcs) == 0 {
		return
	}
	l, err := client(ctx)
	if err != nil {
		return
	}
	fresh := []Function{}
	for _, s := range srcs {
		fs, err := Consumers(ctx, l, s.ARN, now)
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
	ev := incident.Event{Step: Step, Time: now.UTC(), Queue: dlq.Name, QueueURL: dlq.URL,
		Account: dlq.Account, Region: dlq.Region}
	if ev.SetInputs(Inputs{SeenBy: seenBy}) != nil || ev.SetFigures(Figures{Consumers: fresh}) != nil {
		return
	}
	_ = ws.Append(ev)
}
