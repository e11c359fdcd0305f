package cmdutil

import (
	"context"
	"fmt"
	"io"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// SampleRequest says where a step may take its messages from and how it
// peeks when it must.
type SampleRequest struct {
	Step string // the command, for errors: "classify", "logs"
	// Announce, when set, names the account, region and queue before the
	// peek ("inspecting: account …"); a step that announced itself leaves it
	// empty.
	Announce string
	From     string // --from FILE: read it, no AWS call
	Fresh    bool   // inspect: always peek; the incident's sample is what it replaces
	Force    bool   // --force: peek even though the DLQ has its own redrive policy
	Peek     sqsapi.PeekOptions
}

// SampleSet is where the messages are: a file to read (Path), or the
// messages a live peek just took (Peeked, saved as the incident's sample).
type SampleSet struct {
	Path string
	// ws is the incident whose samples.jsonl Path names: read through it,
	// never through a link. Nil for a --from file.
	ws     *incident.Workspace
	Peeked *sqsapi.PeekResult
	// Source names it for the event: the --from file, samples.jsonl, or
	// incident.LiveSample.
	Source string
	// Kept is the size of the incident's sample a smaller fresh peek did
	// not replace (keptSample); 0 when the peek was saved.
	Kept int
}

// Samples is the one way a step gets its messages: --from, else the
// incident's samples.jsonl, else a harmless peek (never deletes) saved as
// samples.jsonl. A peek is refused when the DLQ has its own redrive policy,
// unless --force: every peek counts as a receive and can push messages
// onward. q may be nil with --from.
func (d *Deps) Samples(ctx context.Context, q *sqsapi.Queue, ws *incident.Workspace, r SampleRequest) (SampleSet, error) {
	switch {
	case r.From != "":
		return SampleSet{Path: r.From, Source: r.From}, nil
	case !r.Fresh && ws.Has(incident.SamplesFile):
		d.Infof("using the incident's sample %s (run mfdlq inspect to take a new one)", ws.Path(incident.SamplesFile))
		return IncidentSample(ws), nil
	}
	if q.Chained() != "" && !r.Force {
		hint := ""
		if !r.Fresh {
			hint = ", or take the messages from a file with --from FILE"
		}
		return SampleSet{}, ChainedDLQError(q, "every peek", "pass --force to peek anyway"+hint)
	}
	if r.Announce != "" {
		d.Announce(r.Announce, q)
	}
	if !r.Fresh {
		d.Infof("no samples in the incident: peeking at %s (each message hidden for %ds, never deleted)", q.Name, r.Peek.Visibility)
	}
	d.Warnf("each receive adds 1 to ApproximateReceiveCount: counts seen from now on include mfdlq's own peeks")
	if q.FIFO {
		d.Warnf("%s is FIFO: only the head of each message group can be seen while its messages are in flight", q.Name)
	}
	client, err := d.SQS(ctx)
	if err != nil {
		return SampleSet{}, err
	}
	res, err := sqsapi.Peek(ctx, client, q, r.Peek)
	if err != nil {
		return SampleSet{}, fmt.Errorf("%s %s: %w", r.Step, q.Name, err)
	}
	if r.Fresh {
		if n := keptSample(ws, len(res.Messages)); n > 0 {
			d.Infof(KeptSampleSaid+" of %d (larger than this peek of %d, and nothing has moved or deleted messages since it was taken): classify reads it; a peek of at least %d replaces it",
				n, len(res.Messages), n)
			return SampleSet{Peeked: &res, Source: incident.LiveSample, Kept: n}, nil
		}
	}
	if err := ws.WriteWith(incident.SamplesFile, sqsjson.WriteLines(res.Messages)); err != nil {
		// Nothing will use them: visible again at once, not in seconds.
		handles := make(map[string]string, len(res.Messages))
		for _, m := range res.Messages {
			handles[m.MessageId] = m.ReceiptHandle
		}
		if n := sqsapi.Release(context.WithoutCancel(ctx), client, q.URL, handles); n > 0 {
			d.Warnf("%d peeked messages could not be made visible again: back within %ds", n, r.Peek.Visibility)
		}
		return SampleSet{}, err
	}
	return SampleSet{Peeked: &res, Source: incident.LiveSample}, nil
}

// IncidentSample is the incident's own sample (samples.jsonl), read
// through its workspace, never through a link.
func IncidentSample(ws *incident.Workspace) SampleSet {
	return SampleSet{Path: ws.Path(incident.SamplesFile), ws: ws, Source: incident.SamplesFile}
}

// keptSample is the size of the incident's sample when a fresh peek of
// peeked messages must not replace it (a recent one, larger: see
// incident.Workspace.SampleRecent), else 0.
func keptSample(ws *incident.Workspace, peeked int) int {
	if !ws.SampleRecent() {
		return 0
	}
	msgs, err := ReadSet(IncidentSample(ws), sqsjson.ReadAll)
	if err != nil || len(msgs) <= peeked {
		return 0
	}
	return len(msgs)
}

// KeptSampleSaid begins what a step says when its peek did not replace
// the incident's larger sample; browse reads it to name what it shows.
const KeptSampleSaid = "kept the incident's sample"

// Read returns the messages, reading the file with the flag that named it
// in the errors.
func (s SampleSet) Read() ([]sqsjson.Message, error) {
	if s.Peeked != nil {
		return s.Peeked.Messages, nil
	}
	return ReadSet(s, sqsjson.ReadAll)
}

// ReadSet reads the file s names with read: the incident's sample through
// its workspace (O_NOFOLLOW), a --from file as the operator named it.
func ReadSet[T any](s SampleSet, read func(io.Reader) (T, error)) (T, error) {
	if s.ws == nil {
		return ReadFile(s.Path, s.flag(), read)
	}
	f, err := s.ws.Open(incident.SamplesFile)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return decodeFile(f, s.Path, s.flag(), read)
}

// flag names where a bad file came from: the flag, or the incident.
func (s SampleSet) flag() string {
	if s.Source == incident.SamplesFile {
		return "the incident's sample"
	}
	return "--from"
}

// ChainedDLQError refuses to receive from a DLQ that has its own redrive
// policy: each receive (what: "every peek") counts toward its
// maxReceiveCount and can push messages onward to the next DLQ; how names
// the ways around it. inspect, classify, logs, changes and verify refuse a
// peek with it, export its reads.
func ChainedDLQError(q *sqsapi.Queue, what, how string) error {
	return Refusedf("%s: %s counts as a receive and can push messages onward; %s", q.Chained(), what, how)
}
