package redrive

import (
	"context"
	"errors"
	"strings"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/plural"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// validateSource checks that the messages come from one place: a DLQ
// (--queue) or an export (--from-file: to --to, else each line to its
// recorded source). A local file is
// checked whole here, before any AWS call.
func (o *RedriveOptions) validateSource() error {
	switch {
	case o.Queue == "" && o.FromFile == "":
		return cmdutil.UsageErrorf("--queue is required: the DLQ's name, URL or ARN")
	case o.FromFile == "":
		return nil
	case o.Queue != "":
		return cmdutil.UsageErrorf("--queue and --from-file: choose one source")
	case o.Native || o.Keep:
		return cmdutil.UsageErrorf("--from-file moves a file's messages: --native and --keep do not apply")
	case redrivestep.IsTarget(o.To):
		// A file has no DLQ to lease, nor one its payloads return to.
		return cmdutil.UsageErrorf("--from-file moves to SQS queues only: redrive to %s from its DLQ with --queue", o.To)
	}
	if _, isS3, err := archive.ParseS3(o.FromFile); err != nil {
		return cmdutil.UsageErrorf("--from-file %v", err)
	} else if !isS3 {
		f, err := o.openFile(context.Background())
		if err != nil {
			return err
		}
		f.Close()
	}
	return nil
}

// openFile opens and checks the export; a line that is not a message is a
// usage error naming the line.
func (o *RedriveOptions) openFile(ctx context.Context) (*archive.File, error) {
	f, err := archive.Open(ctx, o.FromFile, o.deps.S3)
	var le *sqsjson.LineError
	switch {
	case errors.As(err, &le):
		return nil, cmdutil.UsageErrorf("--from-file %s: %v: nothing sent; give a file mfdlq export wrote (JSON Lines of SQS messages)", o.FromFile, err)
	case errors.Is(err, archive.ErrPartMissing), errors.Is(err, archive.ErrPartMismatch), errors.Is(err, archive.ErrPartForeign), errors.Is(err, archive.ErrManifest):
		// An export's parts, cut, edited or mixed: bad input, in S3 too.
		return nil, cmdutil.UsageErrorf("--from-file: %v", err)
	case err != nil && !strings.HasPrefix(o.FromFile, "s3://"):
		return nil, cmdutil.UsageErrorf("--from-file: %v", err)
	}
	return f, err
}

// runRedriveFromFile moves an export's messages to --to through the
// mover, the file standing in for the DLQ (archive.Source).
func runRedriveFromFile(ctx context.Context, o *RedriveOptions) error {
	d := o.deps
	f, err := o.openFile(ctx)
	if err != nil {
		return err
	}
	defer f.Close()
	client, err := d.SQS(ctx)
	if err != nil {
		return err
	}
	env := o.env(ctx, client)
	r, err := redrivestep.PrepareReplay(ctx, env, o.Request, f, d.Workspace)
	if err != nil {
		return redriveError(err, &sqsapi.Queue{Name: o.FromFile})
	}
	file, undo, dests := r.Queue, r.Undo, r.Routes.Dests
	d.Announce("redriving", file)
	for _, l := range r.Lines() {
		d.Infof("%s", untrusted.Terminal(l))
	}
	for _, rf := range r.Routes.Refused {
		d.Warnf("%s", untrusted.Terminal(rf.Line()))
	}
	d.Infof("from: %s (%s, %d moved by earlier runs of this incident)", o.FromFile, plural.Of(f.Count, "message"), f.Count-r.Source.Left()-undo.Left)
	if undo.Note != "" {
		d.Warnf("%s", untrusted.Terminal(undo.Note))
	}
	if l := undo.OriginalsLine(o.FromFile, dests); l != "" {
		d.Infof("%s", untrusted.Terminal(l))
	}
	if l := undo.Line(); l != "" {
		d.Infof("%s", untrusted.Terminal(l))
	}
	if n := len(f.Parts); n > 1 {
		d.Infof("parts: %d, read one after another: %s … %s", n, f.Parts[0], f.Parts[n-1])
	}
	p, err := redrivestep.ResolveFile(ctx, env, o.Request, file, r.Routes, r.Source, r.Source.Left())
	if err != nil {
		return redriveError(err, file)
	}
	return o.guardAndRun(ctx, env, r.Workspace, p)
}
