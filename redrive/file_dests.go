package redrive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/redrive/target"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// FileDests are the queues an export's lines go to: --to when given, else
// each line's recorded source (the DeadLetterQueueSourceArn the export
// kept), every one resolved before anything moves. A source that no longer
// exists is not found (exit 5), a file whose lines record none a usage
// error. It reads the file once (next, io.EOF at the end) and keeps only
// the sources, so memory stays bounded whatever the file's size; a line
// exported from a destination itself is a loop (FileLoop).
func FileDests(ctx context.Context, env *Env, to, file string, next func() (*sqsjson.Message, error)) ([]*sqsapi.Queue, error) {
	if to != "" {
		q, err := sqsapi.Resolve(ctx, env.SQS, to, env.Region)
		if err != nil {
			return nil, err
		}
		return []*sqsapi.Queue{q}, target.FileLoop(next, file, q.Name, q.ARN)
	}
	counts, from := map[string]int{}, map[string]int{}
	for {
		m, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if dlq := m.Attributes[sqsjson.AttrOriginalOf]; dlq != "" {
			// An originals file: without --to each record would go to its
			// recorded source, the consumer that failed on it.
			return nil, usagef("--from-file %s holds the originals of a redrive --transform: put them back with --to %s (the undo command the plan printed); nothing was sent", file, arnName(dlq))
		}
		if arn := m.SourceARN(); arn != "" {
			counts[arn]++
			if m.Attributes[sqsjson.AttrExportedFrom] == arn {
				from[arn]++
			}
		}
	}
	if len(counts) == 0 {
		return nil, usagef("--from-file %s: none of its messages records a %s: name the destination with --to QUEUE", file, sqsjson.AttrDeadLetterQueueSourceArn)
	}
	arns := make([]string, 0, len(counts))
	for arn := range counts {
		arns = append(arns, arn)
	}
	sort.Strings(arns)
	var dests []*sqsapi.Queue
	for _, arn := range arns {
		q, err := sqsapi.Resolve(ctx, env.SQS, arn, env.Region)
		if errors.Is(err, sqsapi.ErrQueueNotFound) {
			return nil, notFoundf("--from-file %s: source queue %s of %s no longer exists: recreate it, or replay with --to QUEUE; nothing was sent", file, arnName(arn), plural.Of(counts[arn], "message"))
		}
		if err != nil {
			return nil, fmt.Errorf("source queue %s: %w", arnName(arn), err)
		}
		if from[arn] > 0 {
			return nil, &target.LoopError{Reason: fmt.Sprintf("%s of %s were exported from %s, their own source: replaying them there doubles it", plural.Of(from[arn], "message"), file, q.Name),
				Fix: "pass --to the queue that consumes them"}
		}
		dests = append(dests, q)
	}
	return dests, nil
}

// DeliveredTo tells whether a file line was already delivered to any of
// dests by this incident's journal (each line goes to one destination).
func DeliveredTo(ws *incident.Workspace, dests []*sqsapi.Queue) (func(id string) bool, error) {
	var each []func(string) bool
	for _, q := range dests {
		d, err := journal.Delivered(ws, q.URL)
		if err != nil {
			return nil, err
		}
		each = append(each, d)
	}
	return func(id string) bool {
		for _, d := range each {
			if d(id) {
				return true
			}
		}
		return false
	}, nil
}
