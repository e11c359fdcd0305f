package cmd

import (
	"context"
	"errors"
	"fmt"
	"github.com/mfdlq/mfdlq/plural"
	"time"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// exportManifest is export.json: what the latest export wrote and did.
type exportManifest struct {
	Queue      string    `json:"queue"`
	QueueURL   string    `json:"queue_url"`
	Location   string    `json:"location"`
	Messages   int       `json:"messages"`
	Bytes      int64     `json:"bytes"`
	SHA256     string    `json:"sha256"`
	Backlog    int       `json:"backlog"`
	Deleted    int       `json:"deleted"`
	NotDeleted int       `json:"not_deleted"`
	Skipped    int       `json:"skipped"`
	Filter     string    `json:"filter"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
}

// finish reports what happened to the messages whatever the outcome, then
// records a completed export in the incident.
func (o *exportOptions) finish(ctx context.Context, ws *incident.Workspace, q *sqsapi.Queue, backlog int, started time.Time, st archive.Stats, runErr error) error {
	d := o.deps
	switch {
	case st.Interrupted && st.Location == "":
		d.infof("interrupted: nothing written, nothing deleted; the %s read were made visible again", plural.Of(st.Released, "message"))
		return errInterrupted
	case runErr != nil:
		d.warnf("export failed: nothing deleted; the %s read were made visible again (any missed come back within %ds)", plural.Of(st.Released, "message"), o.Visibility)
		if errors.Is(runErr, context.Canceled) {
			return errInterrupted
		}
		return fmt.Errorf("export %s: %w", q.Name, runErr)
	}
	if err := o.printSummary(st, backlog); err != nil {
		return err
	}
	if st.Unchecked > 0 {
		d.warnf("%s came without an MD5OfBody: their bodies could not be checked", plural.Of(st.Unchecked, "message"))
	}
	if st.NotDeleted > 0 {
		d.warnf("%s could not be deleted: they are in %s and still in %s", plural.Of(st.NotDeleted, "exported message"), st.Location, q.Name)
	}
	if seen := st.Received; o.Max == 0 && seen < backlog {
		d.warnf("read %d of the %s %s held at the start: the rest were in flight with a consumer, delayed, or expired meanwhile; run export again later for them", seen, plural.Of(backlog, "message"), q.Name)
	}
	m := exportManifest{Queue: q.Name, QueueURL: q.URL, Location: st.Location, Messages: st.Exported, Bytes: st.Bytes,
		SHA256: st.SHA256, Backlog: backlog, Deleted: st.Deleted, NotDeleted: st.NotDeleted, Skipped: st.Skipped,
		Filter: o.Filter, StartedAt: started, FinishedAt: d.Now()}
	if err := ws.WriteJSON(incident.ExportFile, m); err != nil {
		return err
	}
	ev := d.Event("export", q)
	ev.Inputs = map[string]any{"out": o.Out, "delete": o.Delete, "max": o.Max, "filter": o.Filter}
	ev.Figures = map[string]any{"location": st.Location, "exported": st.Exported, "deleted": st.Deleted,
		"not_deleted": st.NotDeleted, "skipped": st.Skipped, "backlog": backlog, "bytes": st.Bytes, "sha256": st.SHA256}
	ev.Artifact = incident.ExportFile
	if err := ws.Append(ev); err != nil {
		return err
	}
	if st.Interrupted {
		// Checkpoints had deleted messages: the file was kept, the rest
		// made visible again.
		d.infof("interrupted: %s exported to %s, %d deleted at checkpoints; the %s read since were made visible again", plural.Of(st.Exported, "message"), st.Location, st.Deleted, plural.Of(st.Released, "message"))
		return errInterrupted
	}
	d.nextStep("mfdlq redrive --from-file %s --to QUEUE --rate 10  (when the consumer is fixed)", st.Location)
	return nil
}

func (o *exportOptions) printSummary(st archive.Stats, backlog int) error {
	d := o.deps
	if d.jsonOutput() {
		return d.printJSON(map[string]any{"location": st.Location, "exported": st.Exported, "skipped": st.Skipped,
			"deleted": st.Deleted, "not_deleted": st.NotDeleted, "released": st.Released, "backlog": backlog,
			"bytes": st.Bytes, "sha256": st.SHA256})
	}
	t := tableData{Headers: []string{"FILE", "EXPORTED", "SKIPPED", "DELETED", "BACKLOG", "BYTES", "SHA256"}}
	t.Rows = [][]string{{st.Location, fmt.Sprint(st.Exported), fmt.Sprint(st.Skipped), fmt.Sprint(st.Deleted),
		fmt.Sprint(backlog), fmt.Sprint(st.Bytes), st.SHA256}}
	return d.printTable(t)
}

func secondsDur(s int) time.Duration { return time.Duration(s) * time.Second }
