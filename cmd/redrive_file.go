package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// validateSource checks that the messages come from one place: a DLQ
// (--queue) or an export (--from-file, which needs --to). A local file is
// checked whole here, before any AWS call.
func (o *redriveOptions) validateSource() error {
	switch {
	case o.Queue == "" && o.FromFile == "":
		return usageErrorf("--queue is required: the DLQ's name, URL or ARN")
	case o.FromFile == "":
		return nil
	case o.Queue != "":
		return usageErrorf("--queue and --from-file: choose one source")
	case o.To == "":
		return usageErrorf("--from-file needs --to QUEUE: the queue the file's messages go to")
	case o.Native || o.Keep:
		return usageErrorf("--from-file moves a file's messages: --native and --keep do not apply")
	case isTarget(o.To):
		// A file has no DLQ to lease, nor one its payloads return to.
		return usageErrorf("--from-file moves to SQS queues only: redrive to %s from its DLQ with --queue", o.To)
	}
	if _, isS3, err := archive.ParseS3(o.FromFile); err != nil {
		return usageErrorf("--from-file %v", err)
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
func (o *redriveOptions) openFile(ctx context.Context) (*archive.File, error) {
	f, err := archive.Open(ctx, o.FromFile, o.deps.S3)
	var le *sqsjson.LineError
	switch {
	case errors.As(err, &le):
		return nil, usageErrorf("--from-file %s: %v: nothing sent; give a file mfdlq export wrote (JSON Lines of SQS messages)", o.FromFile, err)
	case err != nil && !strings.HasPrefix(o.FromFile, "s3://"):
		return nil, usageErrorf("--from-file: %v", err)
	}
	return f, err
}

// runRedriveFromFile moves an export's messages to --to through the
// mover, the file standing in for the DLQ (archive.Source).
func runRedriveFromFile(ctx context.Context, o *redriveOptions) error {
	d := o.deps
	f, err := o.openFile(ctx)
	if err != nil {
		return err
	}
	defer f.Close()
	client, dest, err := d.resolveQueue(ctx, o.To)
	if err != nil {
		return err
	}
	name := exportName(o.FromFile)
	ws, err := d.Workspace(name)
	if err != nil {
		return err
	}
	state, err := redrive.ReadState(ws.Path(incident.JournalFile), true)
	if err != nil {
		return err
	}
	src, err := archive.NewSource(f, client, func(id string) bool { return state.Of(id, dest.URL).Op == redrive.OpDeleted })
	if err != nil {
		return fmt.Errorf("--from-file %s: %w", o.FromFile, err)
	}
	file := &sqsapi.Queue{Name: name, URL: src.URL, Account: dest.Account, Region: dest.Region, FIFO: dest.FIFO}
	d.announce("redriving", dest)
	d.infof("from: %s (%s, %d moved by earlier runs of this incident)", o.FromFile, plural.Of(f.Count, "message"), f.Count-src.Left())
	p, err := o.filePlan(ctx, client, file, dest, src)
	if err != nil {
		return err
	}
	if err := o.guard(ctx, ws, p); err != nil {
		return err
	}
	d.warnf("redrive is at least once: a message can reach %s twice, so its consumer must be idempotent", dest.Name)
	o.printPlan(p)
	if o.DryRun {
		d.infof("dry run: nothing changed")
		return nil
	}
	return o.confirmAndMove(ctx, client, ws, p)
}

// filePlan is the plan of a move from a file: its bound, and the canary
// (only when asked for: the file has no source whose consumer it fed),
// checked in the destination's own DLQ.
func (o *redriveOptions) filePlan(ctx context.Context, client sqsapi.Client, file, dest *sqsapi.Queue, src *archive.Source) (*redrivePlan, error) {
	p := &redrivePlan{dlq: file, dest: dest, backlog: src.Left(), workers: o.workers(), source: src}
	p.bound = p.backlog
	if o.Max > 0 {
		p.bound = min(o.Max, p.backlog)
	}
	p.canary = min(max(o.Canary, 0), p.bound)
	p.wait = o.CanaryWait
	if p.canary > 0 && dest.RedrivePolicy != nil {
		dlq, err := sqsapi.Resolve(ctx, client, dest.RedrivePolicy.DeadLetterTargetArn, o.deps.Region(ctx))
		if err != nil {
			return nil, fmt.Errorf("the DLQ of %s, where the canary would come back: %w", dest.Name, err)
		}
		p.returnsTo = dlq
		if p.wait == 0 {
			p.wait = redrive.CanaryWait(dest, dlq)
		}
	}
	if p.wait == 0 {
		p.wait = redrive.CanaryWait(dest, file)
	}
	return p, nil
}

// exportName names the incident of a file: orders-dlq.jsonl.gz → orders-dlq.
func exportName(ref string) string {
	base := filepath.Base(strings.TrimPrefix(ref, "s3://"))
	for _, ext := range []string{".gz", ".jsonl", ".json", ".ndjson"} {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "" || base == "." {
		return "export"
	}
	return base
}
