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
	"github.com/mfdlq/mfdlq/redrive/place"
	"github.com/mfdlq/mfdlq/redrive/target"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// FileRoutes are where an export's lines go: the destinations, the lines
// recording each (by ARN, none with --to), and the recorded sources
// refused before anything moved, whose lines stay in the file.
type FileRoutes struct {
	Dests   []*sqsapi.Queue
	Lines   map[string]int
	Refused []place.FileRefused
}

// FileDests are the queues an export's lines go to: --to when given, else
// each line's recorded source (the DeadLetterQueueSourceArn the export
// kept), every one resolved before anything moves. A recorded source that
// is not an SQS queue ARN of the operator's partition (h) is refused with
// its reason, its lines left in the file; a source that no longer exists
// is not found (exit 5), a file whose lines record none a usage error. It
// reads the file once (next, io.EOF at the end) and keeps only the
// sources, so memory stays bounded whatever the file's size; a line
// exported from a destination itself is a loop (FileLoop).
func FileDests(ctx context.Context, env *Env, req Request, next func() (*sqsjson.Message, error), h place.Home) (*FileRoutes, error) {
	file := req.FromFile
	if req.To != "" {
		q, err := sqsapi.Resolve(ctx, env.SQS, req.To, env.Region)
		if err != nil {
			return nil, err
		}
		if err := CheckPlaces(file, h, []*sqsapi.Queue{q}, req.AllowAccounts); err != nil {
			return nil, err
		}
		return &FileRoutes{Dests: []*sqsapi.Queue{q}}, target.FileLoop(next, file, q.Name, q.ARN)
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
		// The map is bounded by the file's distinct sources; a hostile
		// file of a million distinct ones is refused below, not kept.
		if arn := m.SourceARN(); arn != "" && (len(counts) < maxFileSources || counts[arn] > 0) {
			counts[arn]++
			if m.Attributes[sqsjson.AttrExportedFrom] == arn {
				from[arn]++
			}
		} else if arn != "" {
			return nil, usagef("--from-file %s: its lines record more than %d source queues: replay it with --to QUEUE; nothing was sent", file, maxFileSources)
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
	r := &FileRoutes{Lines: map[string]int{}}
	var good []string
	var places []*sqsapi.Queue
	for _, arn := range arns {
		if why := place.SourceProblem(arn, h); why != "" {
			r.Refused = append(r.Refused, place.FileRefused{Source: arn, Lines: counts[arn], Reason: why})
			continue
		}
		p, _ := place.Of(arn)
		good, places = append(good, arn), append(places, &sqsapi.Queue{Name: arnName(arn), Account: p.Account, Region: p.Region})
	}
	if len(good) == 0 {
		return r, &Refusal{Reason: fmt.Sprintf("--from-file %s: no line records an SQS queue ARN of this partition (%s): all left in the file, nothing was sent; replay with --to QUEUE", file, r.Refused[0].Reason)}
	}
	// Where the data says, weighed before any queue is resolved there.
	if err := CheckPlaces(file, h, places, req.AllowAccounts); err != nil {
		return r, err
	}
	for _, arn := range good {
		q, err := sqsapi.Resolve(ctx, env.SQS, arn, env.Region)
		if errors.Is(err, sqsapi.ErrQueueNotFound) {
			return nil, notFoundf("--from-file %s: source queue %s of %s no longer exists: recreate it, or replay with --to QUEUE; nothing was sent", file, arnName(arn), plural.Of(counts[arn], "message"))
		}
		if err != nil {
			return nil, fmt.Errorf("source queue %s: %w", arnName(arn), err)
		}
		if q.ARN != arn {
			// The data named one queue; the one found must be it.
			return nil, &Refusal{Reason: fmt.Sprintf("--from-file %s: source queue %s resolved to %s, another queue: nothing was sent; replay with --to QUEUE", file, arnName(arn), arnName(q.ARN)+" in account "+q.Account)}
		}
		if from[arn] > 0 {
			return nil, &target.LoopError{Reason: fmt.Sprintf("%s of %s were exported from %s, their own source: replaying them there doubles it", plural.Of(from[arn], "message"), file, q.Name),
				Fix: "pass --to the queue that consumes them"}
		}
		r.Dests, r.Lines[q.ARN] = append(r.Dests, q), counts[arn]
	}
	return r, nil
}

// maxFileSources bounds the distinct recorded sources a replay resolves
// (one GetQueueUrl and GetQueueAttributes each).
const maxFileSources = 100

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
