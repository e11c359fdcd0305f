package redrive

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/target"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/transform"
)

// TransformLimits is what a repaired message must fit: the smallest
// MaximumMessageSize of the plan's destination queues; a function takes
// asynchronous Invoke's 1 MB (target.MaxAsyncPayload), a topic or bus 256
// KiB (transform.DefaultMaxBytes: PutEvents' entry limit, SNS's message).
func (p *Plan) TransformLimits() transform.Limits {
	var lim transform.Limits
	for _, d := range p.Dests {
		if d.Target != nil && p.Req.Target.Kind == KindLambda {
			return transform.Limits{MaxBytes: target.MaxAsyncPayload}
		}
		if d.Target != nil {
			return transform.Limits{}
		}
		if n, err := strconv.Atoi(d.Queue.Attributes["MaximumMessageSize"]); err == nil && n > 0 && (lim.MaxBytes == 0 || n < lim.MaxBytes) {
			lim.MaxBytes = n
		}
	}
	return lim
}

// OriginalsPath is where a DLQ's originals go: the incident's
// transform-originals.jsonl.gz, compressed (a gzip member per group commit), or
// the uncompressed transform-originals.jsonl of an incident whose earlier
// run wrote one, so that an incident keeps one originals file. A file
// replay keeps none: the file is the originals, and it never changes.
func (p *Plan) OriginalsPath(ws *incident.Workspace) string {
	if p.Transform == nil || p.Source.File != nil {
		return ""
	}
	if old := ws.Path(incident.OriginalsFile); regularFile(old) {
		return old
	}
	return ws.Path(incident.OriginalsGzFile)
}

// regularFile says path is a file (not a symbolic link, which the
// originals are never opened through).
func regularFile(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode().IsRegular()
}

// UndoCommand is the command that puts the originals back ("" without a
// transform, for a file replay, and with --keep: every original stays in
// the DLQ, and putting it back would hold it twice — transform.KeepUndo
// says so).
func (p *Plan) UndoCommand(ws *incident.Workspace) string {
	path := p.OriginalsPath(ws)
	if path == "" || p.Req.Keep {
		return ""
	}
	return transform.UndoCommand(path, p.Source.Queue.Name, p.Req.Rate)
}

// Originals is the archive of a --transform's originals, durable when
// Append returns (archive.Originals).
type Originals interface {
	transform.Archive
	Close() error
}

// stepAdapter is the transform as the mover sees it: transform.Step with its
// failures in the mover's words.
type stepAdapter struct{ *transform.Step }

func (s stepAdapter) Apply(ctx context.Context, msgs []sqsjson.Message, ds []envelope.Decoded) ([]sqsjson.Message, []mover.Failure) {
	send, failed := s.Step.Apply(ctx, msgs, ds)
	out := make([]mover.Failure, len(failed))
	for i, f := range failed {
		out[i] = mover.Failure{Message: f.Message, Position: f.Position, Reason: f.Reason, Again: f.Again}
	}
	return send, out
}

// ReadsAttributes tells the mover whether the program may read the
// system attributes, so that its receive asks SQS for them only then.
func (s stepAdapter) ReadsAttributes() bool { return s.Step.Program.ReadsAttributes() }

var (
	_ mover.AttributeReader = stepAdapter{}
	_ mover.PayloadHasher   = stepAdapter{}
)

// noArchive keeps nothing: a file replay's originals are the file.
type noArchive struct{}

func (noArchive) Append([]sqsjson.Message) error { return nil }

// transformStep is the run's transform (nil without one) and the
// function that closes its archive.
func (r *runner) transformStep() (*transform.Step, func(), error) {
	p := r.p
	if p.Transform == nil {
		return nil, func() {}, nil
	}
	if p.Source.File != nil {
		return transform.NewStep(p.Transform, p.TransformLimits(), noArchive{}), func() {}, nil
	}
	if r.env.OpenOriginals == nil {
		return nil, nil, errors.New("--transform: no archive for the originals: nothing moved")
	}
	path := p.OriginalsPath(r.ws)
	o, err := r.env.OpenOriginals(path, p.Source.Queue.ARN, r.id)
	if err != nil {
		return nil, nil, err
	}
	if t, ok := o.(interface{ Torn() string }); ok && t.Torn() != "" {
		r.env.Warn("%s", t.Torn())
	}
	return transform.NewStep(p.Transform, p.TransformLimits(), o), func() {
		if err := o.Close(); err != nil {
			r.env.Warn("%s: %v", filepath.Base(path), err)
		}
	}, nil
}

// previewPeek is how many messages the plan's preview looks at;
// previewHold how many seconds they are hidden at most (released at once).
const (
	previewPeek = 10
	previewHold = 5
)

// PreviewTransform runs the program over the first messages the selection
// picks, for the plan: the DLQ's first ten messages are received, hidden
// for at most previewHold seconds and released at once (a file's first
// lines are read). It moves and changes nothing. sns tells that one of them
// is an SNS notification (the plan's signature line).
func PreviewTransform(ctx context.Context, env *Env, p *Plan) (f transform.Figures, sns bool, err error) {
	pv := transform.NewPreview(p.Transform)
	var c peeker = env.SQS
	if p.Source.File != nil {
		c = p.Source.File
	}
	url := aws.String(p.Source.Queue.URL)
	// A zero VisibilityTimeout is not sent by the SDK (the queue's default
	// would hide them): a few seconds, then an explicit release.
	out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: previewPeek,
		VisibilityTimeout: previewHold, WaitTimeSeconds: 1, MessageAttributeNames: []string{"All"},
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
	if err != nil {
		return f, false, err
	}
	if len(out.Messages) > 0 {
		entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(out.Messages))
		for i, m := range out.Messages {
			entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0}
		}
		// Best effort: what is not released is visible again in previewHold.
		_, _ = c.ChangeMessageVisibilityBatch(context.WithoutCancel(ctx), &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: url, Entries: entries})
	}
	pos := 0
	for _, raw := range out.Messages {
		m := sqsapi.FromSDK(raw)
		if ok, err := p.Select.Match(&m); err != nil || !ok {
			continue
		}
		pos++
		sns = sns || transform.NeedsSignaturePlan(&m)
		pv.Add(pos, &m, p.Transform.Apply(ctx, &m, p.TransformLimits()))
	}
	return pv.Figures(), sns, nil
}
