package redrive

import (
	"context"
	"errors"
	"strings"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// validateSource checks that the messages come from one place
// (redrive.Request.CheckSource); a local file is checked whole here,
// before any AWS call.
func (o *RedriveOptions) validateSource() error {
	if err := o.CheckSource(o.Queue); err != nil || o.FromFile == "" {
		return err
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
	file := r.Queue
	d.Announce("redriving", file)
	o.say(r.HeadLines(f, o.FromFile))
	p, err := redrivestep.ResolveFile(ctx, env, o.Request, file, r.Routes, r.Source, r.Source.Left())
	if err != nil {
		return redriveError(err, file)
	}
	return o.guardAndRun(ctx, env, r.Workspace, p, o.operatorAhead(ctx))
}
