package export

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/plural"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// exportManifest is export.json: what the latest export wrote and did.
type exportManifest struct {
	Queue      string `json:"queue"`
	QueueURL   string `json:"queue_url"`
	Location   string `json:"location"`
	Messages   int    `json:"messages"`
	Bytes      int64  `json:"bytes"`
	SHA256     string `json:"sha256"`
	Backlog    int    `json:"backlog"`
	Deleted    int    `json:"deleted"`
	NotDeleted int    `json:"not_deleted"`
	Skipped    int    `json:"skipped"`
	Filter     string `json:"filter"`
	// FilterErrors are the messages --filter failed on: left in the DLQ.
	FilterErrors     int      `json:"filter_errors"`
	FilterErrorTexts []string `json:"filter_error_texts,omitempty"`
	FilterErrorIDs   []string `json:"filter_error_ids,omitempty"`
	// StoppedAtLimit says why the export stopped at SQS's in-flight
	// limit (archive.Limit*), "" when it did not.
	StoppedAtLimit string `json:"stopped_at_limit,omitempty"`
	// Parts are every object of an export to S3 that went in parts, in
	// order (Location is the first); absent for one file.
	Parts []archive.Part `json:"parts,omitempty"`
	// Failed is the error of an export that failed after it deleted
	// messages: Location is then the file (or parts) that holds them.
	Failed     string    `json:"failed,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
}

// finish reports what happened to the messages whatever the outcome, then
// records a completed export in the incident.
func (o *ExportOptions) finish(ctx context.Context, ws *incident.Workspace, q *sqsapi.Queue, backlog int, started time.Time, st archive.Stats, runErr error) error {
	d := o.deps
	o.warnNotReleased(st)
	if st.Hidden > 0 && (runErr != nil || st.Interrupted) {
		d.Warnf("%s", hiddenLine(st))
	}
	switch {
	case st.Interrupted && st.Location == "":
		d.Infof("interrupted: nothing written, nothing deleted; the %s read were made visible again", plural.Of(st.Released, "message"))
		return cmdutil.ErrInterrupted
	case runErr != nil && st.Deleted > 0:
		// Parts (or checkpoints) were durable and deleted before the
		// failure: the error names the file or parts that hold them.
		d.Warnf("export failed after %d were deleted, each once durable; the %s read since were made visible again", st.Deleted, plural.Of(st.Released, "message"))
		// The incident says where the deleted messages are: the file kept
		// holds exactly them.
		st.Location, st.Exported, st.Bytes, st.SHA256, st.Parts = st.Kept, st.Deleted, 0, "", nil
		if err := o.record(ws, q, backlog, started, st, runErr.Error()); err != nil {
			d.Warnf("the incident could not record the export: %v", err)
		}
		return fmt.Errorf("export %s: %w", q.Name, runErr)
	case runErr != nil:
		d.Warnf("export failed: nothing deleted; the %s read were made visible again", plural.Of(st.Released, "message"))
		if errors.Is(runErr, context.Canceled) {
			return cmdutil.ErrInterrupted
		}
		if errors.Is(runErr, archive.ErrExists) {
			// The same refusal as the check before the export: the name was
			// taken while it ran, and the commit kept it.
			return cmdutil.UsageErrorf("--out %s: already exists, created while this export ran: mfdlq never replaces a file or an object; pick a new name", o.target)
		}
		return fmt.Errorf("export %s: %w", q.Name, runErr)
	}
	if err := o.printSummary(st, backlog); err != nil {
		return err
	}
	for _, t := range st.FilterErrorTexts {
		d.Warnf("--filter failed: %s", untrusted.Shorten(untrusted.Terminal(t), 300))
	}
	if st.Unchecked > 0 {
		d.Warnf("%s came without an MD5OfBody: their bodies could not be checked", plural.Of(st.Unchecked, "message"))
	}
	if st.NotDeleted > 0 {
		d.Warnf("%s could not be deleted: they are in %s and still in %s", plural.Of(st.NotDeleted, "exported message"), st.Location, q.Name)
	}
	if seen := st.Received; o.Max == 0 && seen < backlog && !st.StoppedAtLimit() {
		d.Warnf("read %d of the %s %s held at the start (%d of them in flight elsewhere then): the rest were still in flight, delayed, or expired meanwhile; run export again later for them", seen, plural.Of(backlog, "message"), q.Name, q.Depth.InFlight)
	}
	if err := o.record(ws, q, backlog, started, st, ""); err != nil {
		return err
	}
	if st.Interrupted {
		// Checkpoints had deleted messages: the file was kept, the rest
		// made visible again.
		d.Infof("interrupted: %s exported to %s, %d deleted at checkpoints; the %s read since were made visible again", plural.Of(st.Exported, "message"), st.Location, st.Deleted, plural.Of(st.Released, "message"))
		return cmdutil.ErrInterrupted
	}
	if st.StoppedAtLimit() {
		return o.limitStop(q, backlog, st)
	}
	if st.Hidden > 0 {
		// Not a bare ok: the export waited and looked again, and messages
		// may still be away.
		return cmdutil.CheckFailedf("%s", hiddenLine(st))
	}
	if st.FilterErrors > 0 {
		// As redrive: a filter that fails is a check not passed, never a
		// quiet skip; the messages stay in the DLQ for the next run.
		return cmdutil.CheckFailedf("--filter failed on %s, left in %s (listed under filter_error_ids in %s): fix the filter and export them again", plural.Of(st.FilterErrors, "message"), q.Name, incident.ExportFile)
	}
	if len(st.Parts) > 1 {
		d.Infof("%s went in %d parts, each uploaded and read back before its messages were deleted; --from-file %s reads them all", q.Name, len(st.Parts), st.Location)
	}
	d.NextStep("mfdlq redrive --from-file %s --to QUEUE --rate 10  (when the consumer is fixed)", st.Location)
	return nil
}

func (o *ExportOptions) printSummary(st archive.Stats, backlog int) error {
	d := o.deps
	if d.JSONOutput() {
		// Keys in the order the map this was once written from gave them.
		return d.PrintJSON(struct {
			Backlog      int            `json:"backlog"`
			Bytes        int64          `json:"bytes"`
			Deleted      int            `json:"deleted"`
			Exported     int            `json:"exported"`
			FilterErrors int            `json:"filter_errors"`
			Location     string         `json:"location"`
			NotDeleted   int            `json:"not_deleted"`
			Released     int            `json:"released"`
			SHA256       string         `json:"sha256"`
			Skipped      int            `json:"skipped"`
			Stopped      string         `json:"stopped_at_limit,omitempty"`
			Parts        []archive.Part `json:"parts,omitempty"`
			Hidden       int            `json:"hidden,omitempty"`
			HiddenUntil  time.Time      `json:"hidden_until,omitzero"`
		}{backlog, st.Bytes, st.Deleted, st.Exported, st.FilterErrors, st.Location, st.NotDeleted, st.Released, st.SHA256, st.Skipped, st.Limit, st.Parts, st.Hidden, st.HiddenUntil})
	}
	t := cmdutil.TableData{Headers: []string{"FILE", "EXPORTED", "SKIPPED", "DELETED", "BACKLOG", "BYTES", "SHA256"}}
	if len(st.Parts) > 1 {
		// One row a part, then the whole: each part is a file of its own.
		for _, p := range st.Parts {
			t.Rows = append(t.Rows, []string{p.Location, fmt.Sprint(p.Messages), "", fmt.Sprint(p.Deleted), "", fmt.Sprint(p.Bytes), p.SHA256})
		}
		st.Location, st.SHA256 = fmt.Sprintf("all %d parts", len(st.Parts)), ""
	}
	t.Rows = append(t.Rows, []string{st.Location, fmt.Sprint(st.Exported), fmt.Sprint(st.Skipped), fmt.Sprint(st.Deleted),
		fmt.Sprint(backlog), fmt.Sprint(st.Bytes), st.SHA256})
	return d.PrintTable(t)
}

// record writes export.json and the export event; failed is the error of
// an export that failed after deleting ("" when it completed).
func (o *ExportOptions) record(ws *incident.Workspace, q *sqsapi.Queue, backlog int, started time.Time, st archive.Stats, failed string) error {
	d := o.deps
	failed = untrusted.Shorten(failed, archive.MaxFailedText)
	m := exportManifest{Queue: q.Name, QueueURL: q.URL, Location: st.Location, Messages: st.Exported, Bytes: st.Bytes,
		SHA256: st.SHA256, Backlog: backlog, Deleted: st.Deleted, NotDeleted: st.NotDeleted, Skipped: st.Skipped,
		Filter: o.Filter, FilterErrors: st.FilterErrors, FilterErrorTexts: st.FilterErrorTexts, FilterErrorIDs: st.FilterErrorIDs,
		StoppedAtLimit: st.Limit, Parts: st.Parts, Failed: failed, StartedAt: started, FinishedAt: d.Now()}
	if err := ws.WriteJSON(incident.ExportFile, m); err != nil {
		return err
	}
	ev := d.Event("export", q)
	in := archive.Inputs{Out: o.Out, Delete: o.Delete, Max: o.Max, Filter: o.Filter}
	f := st.Figures(backlog)
	f.Failed = failed
	if err := ev.Set(in, f); err != nil {
		return err
	}
	ev.Artifact = incident.ExportFile
	return ws.Append(ev)
}

// hiddenLine says how many messages receives whose answers were lost may
// still hide, and when they are back.
func hiddenLine(st archive.Stats) string {
	return fmt.Sprintf("up to %s hidden by a receive whose answer was lost reappear at %s: run the same export again after that (to a new --out)",
		plural.Of(st.Hidden, "message"), st.HiddenUntil.UTC().Format(time.RFC3339))
}

// warnNotReleased says how many messages SQS did not confirm as made
// visible again, and when they come back by themselves.
func (o *ExportOptions) warnNotReleased(st archive.Stats) {
	if st.NotReleased > 0 {
		o.deps.Warnf("%s could not be made visible again (SQS did not confirm): they come back by themselves within %ds", plural.Of(st.NotReleased, "message"), o.Visibility)
	}
}

func secondsDur(s int) time.Duration { return time.Duration(s) * time.Second }
