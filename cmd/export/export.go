// Package export is `mfdlq export`: every message of a DLQ into a JSON
// Lines file or S3 objects (the archive package reads and writes them),
// deleting exactly the exported ones with --delete once they are durable.
package export

import (
	"github.com/mfdlq/mfdlq/redrive/mover"

	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/plural"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// ExportOptions are the flags of mfdlq export.
type ExportOptions struct {
	deps       *cmdutil.Deps
	Queue      string // --queue: the DLQ (name, URL or ARN)
	Out        string // --out: FILE or s3://BUCKET/KEY
	Delete     bool   // --delete: delete the exported messages once durable
	Max        int    // --max: at most N messages
	Filter     string // --filter: jq over the message, Body parsed
	Visibility int    // --visibility: seconds a read message stays hidden, renewed
	Force      bool   // --force: export a DLQ with its own redrive policy without --delete
	Yes        bool   // --yes
	DryRun     bool   // --dry-run

	// limit is the queue's in-flight limit: SQS's, or MFDLQ_INFLIGHT_LIMIT
	// (a raised quota, or a local harness's).
	limit  int
	s3     *archive.S3Location
	selFn  func(*sqsjson.Message) (bool, error)
	gzip   bool
	target string
}

// NewCmdExport is `mfdlq export`; runF, when not nil, gets the parsed
// options instead of the run (tests).
func NewCmdExport(d *cmdutil.Deps, runF func(*ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{deps: d}
	c := &cobra.Command{
		Use:   "export --queue DLQ --out FILE|s3://BUCKET/KEY [--delete] [--max N] [--filter JQ]",
		Short: "Archive every message of a DLQ to a file before retention deletes it",
		Long: `Read every message of the DLQ (not a sample) into a JSON Lines file in the
SQS message shape that inspect, classify and redrive --from-file read: the
body byte for byte (checked against MD5OfBody), every attribute and message
attribute. A name ending in .gz is gzipped; s3://BUCKET/KEY uploads with the
bucket's default encryption and no ACL. The file is created 0600 and never
replaces one that exists.

What it changes in AWS: while it reads, the messages are hidden (the
visibility timeout, renewed every third of it); then they are made visible
again. With --delete, exactly the exported messages are deleted, only after
the file is durable (fsynced, or uploaded): --delete names the account,
region and queue and asks first (--yes on scripts; --dry-run shows the plan).
Ctrl-C leaves every message in the DLQ. The incident records the export.

SQS lets a queue have about 120,000 messages in flight. Without --delete
the export holds every message it reads, so past that it stops with the
numbers (exit 3; the plan says so first); with --delete it archives in
parts and drains any depth: into a file, each part fsynced before exactly
its messages are deleted; to s3://BUCKET/KEY, each part its own object
(KEY, then KEY's name with .part-0002, .part-0003… before its extension),
uploaded and read back before exactly its messages are deleted.
redrive --from-file KEY reads every part. A DLQ with its own redrive policy (every receive
counts toward its maxReceiveCount) is refused without --delete unless
--force. MFDLQ_INFLIGHT_LIMIT sets the limit (a quota raised by AWS Support).

Examples:
  mfdlq export --queue orders-dlq --out orders-dlq.jsonl.gz
  mfdlq export --queue orders-dlq --out s3://oncall-archive/orders-dlq/2026-12-01.jsonl.gz --delete --yes
  mfdlq export --queue orders-dlq --out v2.jsonl --filter '.Body.version == 2' --max 1000
` + cmdutil.ExitStatusHelp,
		Args: cobra.NoArgs,
		RunE: cmdutil.StepRunE(d, opts, opts.validate, nil, runF, runExport),
	}
	f := c.Flags()
	cmdutil.AddQueueFlag(f, &opts.Queue)
	f.StringVar(&opts.Out, "out", "", "the file to write, or s3://BUCKET/KEY (required; .gz: gzip)")
	f.BoolVar(&opts.Delete, "delete", false, "delete exactly the exported messages once the file is durable")
	f.IntVar(&opts.Max, "max", 0, "export at most N messages (default: all)")
	f.StringVar(&opts.Filter, "filter", "", "jq expression over the message (Body parsed when JSON); exports those it is true for")
	f.IntVar(&opts.Visibility, "visibility", 300, "seconds a read message stays hidden, renewed while the export runs (60-43200)")
	f.BoolVar(&opts.Force, "force", false, "export a DLQ that has its own redrive policy without --delete (each receive counts toward its maxReceiveCount)")
	f.BoolVar(&opts.Yes, "yes", false, "do not ask before --delete")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print the plan and change nothing")
	return c
}

func (o *ExportOptions) validate() error {
	switch {
	case o.Queue == "":
		return cmdutil.ErrNoQueue
	case o.Out == "":
		return cmdutil.UsageErrorf("--out is required: a file name (orders-dlq.jsonl.gz) or s3://BUCKET/KEY")
	case o.Max < 0:
		return cmdutil.UsageErrorf("--max must be >= 0, got %d", o.Max)
	case o.Visibility < 60 || o.Visibility > 43200:
		return cmdutil.UsageErrorf("--visibility must be between 60 and 43200 seconds, got %d", o.Visibility)
	}
	limit, err := inFlightLimit()
	if err != nil {
		return err
	}
	o.limit = limit
	loc, isS3, err := archive.ParseS3(o.Out)
	switch {
	case err != nil:
		return cmdutil.UsageErrorf("--out %v", err)
	case isS3:
		o.s3 = &loc
	default:
		if err := archive.CheckPath(o.Out); err != nil {
			return cmdutil.UsageErrorf("--out %v: mfdlq never replaces a file; pick a new name", err)
		}
	}
	o.gzip = archive.IsGzipName(o.Out)
	sel, err := mover.Selection{Filter: o.Filter}.Compile()
	if err != nil {
		return cmdutil.UsageErrorf("%s", strings.TrimSpace(err.Error()))
	}
	o.selFn = sel
	return nil
}

func runExport(ctx context.Context, o *ExportOptions) error {
	d := o.deps
	client, q, err := d.ResolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	if err := o.checkChained(q); err != nil {
		return err
	}
	sink, err := o.sink(ctx)
	if err != nil {
		return err
	}
	d.Announce("exporting", q)
	backlog := int(q.Depth.Total())
	o.printPlan(q, backlog)
	if q.FIFO {
		d.Warnf("%s is FIFO: while the export holds a group's first messages SQS shows none behind them, so a FIFO export may read only the head of each group; the count check below tells", q.Name)
	}
	if o.DryRun {
		sink.Abort()
		d.Infof("dry run: nothing read, nothing changed")
		return nil
	}
	if o.Delete {
		if err := d.Confirm(fmt.Sprintf("Export %s to %s and then delete the exported messages from it?", q.Name, o.Out), o.Yes); err != nil {
			sink.Abort()
			return err
		}
	}
	ws, err := d.Workspace(q.Name)
	if err != nil {
		sink.Abort()
		return err
	}
	started := d.Now()
	prog := &exportProgress{d: d, total: backlog, start: time.Now()}
	st, err := archive.Export(ctx, client, sink, archive.Options{
		Queue: q, Backlog: backlog, Max: o.Max, Select: o.selFn, Delete: o.Delete, Gzip: o.gzip,
		Visibility: secondsDur(o.Visibility), Progress: prog.update, InFlightLimit: o.limit, RescueDir: ws.Dir,
		Waiting: func(hidden int, until time.Time) {
			prog.finish()
			d.Infof("a receive's answer was lost: waiting until %s for up to %s it may have hidden, then looking again (Ctrl-C leaves every message in %s)",
				until.UTC().Format(time.RFC3339), plural.Of(hidden, "message"), q.Name)
		},
	})
	prog.finish()
	return o.finish(ctx, ws, q, backlog, started, st, err)
}

// sink checks the output before anything is read and opens it.
func (o *ExportOptions) sink(ctx context.Context) (archive.Sink, error) {
	if o.s3 == nil {
		o.target = o.Out
		s, err := archive.NewFileSink(o.Out)
		if errors.Is(err, archive.ErrExists) {
			return nil, cmdutil.UsageErrorf("--out %v: mfdlq never replaces a file; pick a new name", err)
		}
		return s, err
	}
	o.target = o.s3.String()
	c, err := o.deps.S3(ctx)
	if err != nil {
		return nil, err
	}
	// Part 2's key and the manifest's must be free too: redrive
	// --from-file of the first part reads them by name.
	for _, key := range []string{o.s3.Key, archive.PartName(o.s3.Key, 2), archive.ManifestName(o.s3.Key)} {
		loc := archive.S3Location{Bucket: o.s3.Bucket, Key: key}
		if err := archive.CheckS3(ctx, c, loc); err != nil {
			if errors.Is(err, archive.ErrExists) {
				return nil, cmdutil.UsageErrorf("--out %v: mfdlq never replaces an object; pick a new key", err)
			}
			return nil, err
		}
	}
	return archive.NewS3PartsSink(c, *o.s3)
}

func (o *ExportOptions) printPlan(q *sqsapi.Queue, backlog int) {
	d := o.deps
	queue := q.Name
	what := "every message"
	if o.Max > 0 {
		what = "up to " + plural.Of(o.Max, "message")
	}
	if o.Filter != "" {
		what += " matching --filter " + o.Filter
	}
	format := "JSON Lines"
	if o.gzip {
		format += ", gzip"
	}
	d.Infof("plan: export %s of the %d in %s to %s (%s)", what, backlog, queue, o.target, format)
	if o.Delete {
		d.Infof("plan: then delete exactly the exported messages from %s, once %s is durable", queue, o.target)
	} else {
		d.Infof("plan: then make every message visible again (nothing deleted); they are hidden for up to %ds meanwhile", o.Visibility)
	}
	o.planLimit(q)
}

// exportProgress draws a bar on a terminal's stderr (not with --quiet):
// read/backlog, exported, deleted, rate and ETA, at most five times a second.
type exportProgress struct {
	d     *cmdutil.Deps
	total int
	start time.Time
	shown time.Time
	drawn bool
	last  archive.Stats
}

func (p *exportProgress) update(st archive.Stats) {
	p.last = st
	if !p.d.IO.ErrTTY || p.d.Global.Quiet || time.Since(p.shown) < 200*time.Millisecond {
		return
	}
	p.shown = time.Now()
	r := float64(st.Received) / max(time.Since(p.start).Seconds(), 0.001)
	eta := "?"
	if r > 0 && p.total > 0 {
		eta = (time.Duration(float64(max(p.total-st.Received, 0))/r) * time.Second).Round(time.Second).String()
	}
	const width = 30
	fill := width * min(st.Received, p.total) / max(p.total, 1)
	fmt.Fprintf(p.d.IO.ErrOut, "\r\x1b[K[%s%s] %d/%d read · %d exported · %d deleted · %.1f msg/s · ETA %s",
		strings.Repeat("█", fill), strings.Repeat("░", width-fill), st.Received, p.total, st.Exported, st.Deleted, r, eta)
	p.drawn = true
}

func (p *exportProgress) finish() {
	if p.drawn {
		fmt.Fprintln(p.d.IO.ErrOut)
	}
}
