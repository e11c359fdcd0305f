// Package record is mfdlq record, the runbook's last step on the command
// line: its flags, the questions it asks and the report it renders from
// the incident (package report).
package record

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/notify"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/report"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// RecordOptions are the flags of mfdlq record.
type RecordOptions struct {
	deps     *cmdutil.Deps
	Queue    string // --queue: finds the default incident directory
	Cause    string // --cause: what caused it
	Change   string // --fixed: what was changed
	Warning  string // --warning: what would have warned earlier
	Out      string // --out: the report file (default DIR/report.md)
	NoRedact bool   // --no-redact: keep bodies and log lines in clear
	Close    bool   // --close: close the incident though its DLQ still holds messages
	notify   cmdutil.NotifyFlag
}

// NewCmdRecord is mfdlq record. runF, when set, is called with the
// validated options instead of the run (flag tests).
func NewCmdRecord(d *cmdutil.Deps, runF func(*RecordOptions) error) *cobra.Command {
	opts := &RecordOptions{deps: d}
	c := &cobra.Command{
		Use:   "record [--incident DIR] [--cause TEXT] [--fixed TEXT] [--warning TEXT] [--out FILE]",
		Short: runbook.Label(runbook.StepRecord) + ": write the incident report",
		Long:  docs.Long("record") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  cmdutil.StepRunE(d, opts, opts.validate, func() string { return opts.Queue }, runF, runRecord),
	}
	f := c.Flags()
	f.StringVar(&opts.Queue, "queue", "", "the DLQ, to find its open incident when --incident is not given")
	f.StringVar(&opts.Cause, "cause", "", "what caused the incident")
	f.StringVar(&opts.Change, "fixed", "", "what was changed: the fix (default: the one recorded by redrive --fixed or the runbook)")
	d.RenamedFlag(f, "change", "fixed")
	f.StringVar(&opts.Warning, "warning", "", "what would have warned earlier (mfdlq check's findings are added)")
	f.StringVar(&opts.Out, "out", "", "write the report to FILE (default DIR/report.md)")
	f.BoolVar(&opts.NoRedact, "no-redact", false, "keep personal data and secrets in bodies and log lines")
	f.BoolVar(&opts.Close, "close", false, "close the incident even though its DLQ still holds messages")
	opts.notify.Bind(f)
	return c
}

func (o *RecordOptions) validate() error {
	d := o.deps
	if err := o.notify.Validate(); err != nil {
		return err
	}
	if d.Global.Incident == "" && os.Getenv("MFDLQ_INCIDENT") == "" && o.Queue == "" {
		return cmdutil.UsageErrorf("no incident: pass --incident DIR (or --queue DLQ for its open incident)")
	}
	return cmdutil.OutReplaceable(o.Out)
}

// RunRecord renders the report of d's incident with o's texts as record
// does, without its flags' checks (no --notify): the runbook's record step.
func RunRecord(ctx context.Context, d *cmdutil.Deps, o RecordOptions) error {
	o.deps = d
	return runRecord(ctx, &o)
}

func runRecord(ctx context.Context, o *RecordOptions) error {
	d := o.deps
	dir, err := o.incidentDir()
	if err != nil {
		return err
	}
	ws, err := incident.Existing(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return cmdutil.UsageErrorf("incident directory %s does not exist: run the steps first, or pass --incident DIR", dir)
	}
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	inc, err := report.LoadIncident(ws)
	if err != nil {
		return err
	}
	if len(inc.Events) == 0 {
		d.Warnf("%s holds no events: every step will say \"not run\"", dir)
	}
	if err := o.ask(inc); err != nil {
		return err
	}
	cmdline := cmdutil.RecordedCommand(d.Args)
	var buf bytes.Buffer
	res, err := inc.Render(&buf, report.ReportOptions{
		Cause: o.Cause, Change: o.Change, Warning: o.Warning, Operator: cmdutil.Operator(),
		Now: d.Now(), Command: cmdline, NoRedact: o.NoRedact,
	})
	if err != nil {
		return err
	}
	out := o.Out
	if out == "" {
		out = ws.Path(incident.ReportFile)
	}
	if err := cmdutil.OutReplaceable(o.Out); err != nil {
		return err
	}
	if err := incident.WriteFileAtomic(out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	closed := o.closes(ctx, inc)
	ev, err := o.appendEvent(ws, inc, out, res, closed)
	if err != nil {
		return err
	}
	if err := o.render(out, res, closed); err != nil {
		return err
	}
	where := lastAccountEvent(inc, ev)
	d.NotifyEnd(ctx, &o.notify, ws, where, notify.Message{Step: "record", Queue: where.Queue, Account: where.Account, Region: where.Region,
		Verdict: "report written", Moved: recordMoved(inc), Report: out})
	return nil
}

// incidentDir is the incident to record: --incident, MFDLQ_INCIDENT, or
// the open incident of --queue (a name, URL or ARN). Record never starts a
// new one: it renders one, and closes it when its DLQ is empty (closes). The directory is checked by
// incident.Existing: a symlinked, foreign or shared one is a usage error,
// and record makes no AWS call.
func (o *RecordOptions) incidentDir() (string, error) {
	d := o.deps
	queue := sqsapi.NameOf(o.Queue)
	if d.Global.Incident != "" || os.Getenv("MFDLQ_INCIDENT") != "" {
		dir, _ := d.IncidentDir(queue) // a failed pull is said when the command ends
		return dir, nil
	}
	root, err := incident.DefaultRoot(os.Getenv)
	if err != nil {
		return "", cmdutil.UsageErrorf("%v", err)
	}
	f, ok, err := incident.LatestOpenIn(incident.Roots(root), queue, d.Now())
	if err != nil {
		return "", err
	}
	if !ok {
		return "", cmdutil.UsageErrorf("no open incident of %s in %s or ./%s (record closed the last one): pass --incident DIR", queue, root, incident.Root)
	}
	d.Infof("incident: %s (the open incident of %s)", f.Dir, queue)
	return f.Dir, nil
}

// recordDepthTimeout bounds record's one AWS call, the DLQ's depth.
const recordDepthTimeout = 20 * time.Second

// closes tells whether this record closes the incident: with --close, or
// when its DLQ holds no message (or no longer exists). While the DLQ
// holds messages — a redrive declined, refused or not yet run — the
// incident stays open, and the next step without --incident continues it
// with its classification. A DLQ whose depth cannot be read keeps it open
// too: the safe side, said with the way to close it.
func (o *RecordOptions) closes(ctx context.Context, inc *report.Incident) bool {
	d := o.deps
	q, ok := firstQueueURLEvent(inc)
	if o.Close || !ok {
		return true
	}
	// The report is written already: a network that does not answer
	// costs at most this long, and keeps the incident open.
	rctx, cancel := context.WithTimeout(ctx, recordDepthTimeout)
	defer cancel()
	_, dlq, err := d.ResolveQueue(rctx, q.QueueURL)
	switch {
	case errors.Is(err, sqsapi.ErrQueueNotFound):
		d.Infof("%s no longer exists: the incident is closed", q.Queue)
		return true
	case err != nil:
		d.Warnf("the incident stays open: the depth of %s cannot be read (%v); `mfdlq record --close` closes it", q.Queue, err)
		return false
	}
	if n := dlq.Depth.Total(); n > 0 {
		d.Warnf("the incident stays open: %s still holds %s; `mfdlq record --close` closes it", q.Queue, plural.Of(int(n), "message"))
		return false
	}
	return true
}

// ask fills the record's missing texts on a terminal; elsewhere they stay
// empty and the report shows a TODO. Ctrl-C at a question is an error:
// no report is written from an interrupted record.
func (o *RecordOptions) ask(inc *report.Incident) error {
	d := o.deps
	if !d.IO.InTTY {
		return nil
	}
	var err error
	question := func(text *string, q string) {
		if err != nil {
			return
		}
		var line string
		line, err = d.Prompter().Input(q + " (Enter to leave a TODO):")
		if errors.Is(err, cmdutil.ErrNoTerminal) || errors.Is(err, cmdutil.ErrNoAnswer) {
			err = nil // a TODO, as without a terminal
		}
		*text = line
	}
	if o.Cause == "" {
		question(&o.Cause, "What caused it?")
	}
	if o.Change == "" && inc.RecordedChange() == "" {
		question(&o.Change, "What was changed?")
	}
	if o.Warning == "" && len(inc.Warnings()) == 0 {
		question(&o.Warning, "What would have warned earlier?")
	}
	if err != nil {
		return fmt.Errorf("record: no report written: %w", err)
	}
	return nil
}

func (o *RecordOptions) appendEvent(ws *incident.Workspace, inc *report.Incident, out string, res report.ReportResult, closed bool) (incident.Event, error) {
	d := o.deps
	ev := d.Event("record", nil)
	// The verdict says whether it closed the incident (incident.Found.Closed).
	ev.Verdict = incident.RecordOpen
	if closed {
		ev.Verdict = incident.RecordClosed
	}
	if q, ok := firstQueueEvent(inc); ok {
		ev.Queue, ev.QueueURL, ev.Account, ev.Region = q.Queue, q.QueueURL, q.Account, q.Region
	}
	in := report.RecordInputs{Out: out, Redacted: !o.NoRedact, Cause: o.Cause != "", Change: o.Change != "", Warning: o.Warning != ""}
	if err := ev.Set(in, report.RecordFigures{TODO: len(res.TODO), Redactions: res.Redacted.Total()}); err != nil {
		return ev, err
	}
	if o.Out == "" {
		ev.Artifact = incident.ReportFile
	}
	return ev, ws.Append(ev)
}

// recordMoved is what the incident's redrives moved and its last verify
// said, for the team's message: figures as recorded, none re-derived.
func recordMoved(inc *report.Incident) string {
	moved, redrives, verdict := 0, 0, ""
	for _, ev := range inc.Events {
		switch ev.Step {
		case "redrive":
			var f redrive.Figures
			if ev.DecodeFigures(&f) == nil {
				moved += f.Moved
				redrives++
			}
		case "verify":
			verdict = ev.Verdict
		}
	}
	out := "no redrive recorded"
	if redrives > 0 {
		out = plural.Of(moved, "message") + " redriven"
	}
	if verdict != "" {
		out += ", verify " + plural.Spoken(verdict)
	}
	return out
}

// lastAccountEvent is the latest event that names its account and region:
// where the incident happened, for the team's message.
func lastAccountEvent(inc *report.Incident, fallback incident.Event) incident.Event {
	for i := len(inc.Events) - 1; i >= 0; i-- {
		if ev := inc.Events[i]; ev.Account != "" && ev.Queue != "" {
			return ev
		}
	}
	return fallback
}

func firstQueueEvent(inc *report.Incident) (incident.Event, bool) {
	for _, ev := range inc.Events {
		if ev.Queue != "" {
			return ev, true
		}
	}
	return incident.Event{}, false
}

// firstQueueURLEvent is the first event that names the DLQ's URL, the
// one its depth is read from: the Lambda's alarm event comes first in its
// incidents and names the queue without one.
func firstQueueURLEvent(inc *report.Incident) (incident.Event, bool) {
	for _, ev := range inc.Events {
		if ev.QueueURL != "" {
			return ev, true
		}
	}
	return incident.Event{}, false
}

// recordResult is record's --output json.
type recordResult struct {
	Report   string         `json:"report"`
	Redacted map[string]int `json:"redacted"`
	TODO     []string       `json:"todo"`
	// Closed: this record closed the incident (else its DLQ still holds
	// messages and the next step continues it).
	Closed bool `json:"closed"`
}

func (o *RecordOptions) render(out string, res report.ReportResult, closed bool) error {
	d := o.deps
	if d.JSONOutput() {
		r := recordResult{Report: out, Redacted: map[string]int(res.Redacted), TODO: res.TODO, Closed: closed}
		if r.Redacted == nil {
			r.Redacted = map[string]int{}
		}
		if r.TODO == nil {
			r.TODO = []string{}
		}
		return d.PrintJSON(r)
	}
	if len(res.TODO) > 0 {
		d.Warnf("the report has TODOs for --%s: fill them in, or run record again with them", strings.Join(res.TODO, ", --"))
	}
	if o.NoRedact {
		d.Warnf("not redacted: the report holds message bodies and log lines as they are; handle it as personal data")
	}
	_, err := fmt.Fprintln(d.IO.Out, out)
	return err
}
