package ls

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/incidents3"
)

// lsIncident is one incident of ls --incidents (--output json: the list).
type lsIncident struct {
	Where    string    `json:"where"` // local or s3
	Incident string    `json:"incident"`
	Queue    string    `json:"queue"`
	Started  time.Time `json:"started"`
	LastStep string    `json:"last_step"`
	LastTime time.Time `json:"last_time"`
	Verdict  string    `json:"verdict,omitempty"`
	Closed   bool      `json:"closed"`
}

// maxLocalIncidents bounds the local listing as incidents3.MaxListed
// bounds S3's.
const maxLocalIncidents = 500

// runLsIncidents lists the incidents in the per-user incidents directory
// (and ./incidents, where older mfdlq kept them) and, when
// --incident names s3://bucket/prefix/, the team's incidents there. It
// reads no queue.
func runLsIncidents(ctx context.Context, o *LsOptions) error {
	d := o.deps
	root, err := incident.DefaultRoot(os.Getenv)
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	out := []lsIncident{}
	for _, r := range incident.Roots(root) {
		found, err := localIncidents(r)
		if err != nil {
			return err
		}
		out = append(out, found...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastTime.After(out[j].LastTime) })
	if raw, ok := d.IncidentURL(); ok {
		p, err := incidents3.ParsePrefix(raw)
		if err != nil {
			return cmdutil.UsageErrorf("--incident: %v", err)
		}
		c, err := d.S3Client(ctx)
		if err != nil {
			return err
		}
		list, truncated, err := incidents3.List(ctx, c, p)
		if err != nil {
			return err
		}
		if truncated {
			d.Warnf("%s holds more than %d incidents: the first %d are listed", p, incidents3.MaxListed, incidents3.MaxListed)
		}
		for _, s := range list {
			out = append(out, lsIncident{Where: "s3", Incident: s.URL, Queue: s.Queue, Started: s.Started, LastStep: s.LastStep, LastTime: s.LastTime, Verdict: s.Verdict, Closed: s.Closed})
		}
	}
	if d.JSONOutput() {
		return d.PrintJSON(out)
	}
	t := cmdutil.TableData{Headers: []string{"WHERE", "INCIDENT", "QUEUE", "LAST STEP", "AT", "VERDICT", "STATE"}}
	for _, in := range out {
		state := "open"
		if in.Closed {
			state = "closed"
		}
		at := ""
		if !in.LastTime.IsZero() {
			at = in.LastTime.UTC().Format(time.RFC3339)
		}
		t.Rows = append(t.Rows, []string{in.Where, in.Incident, in.Queue, in.LastStep, at, in.Verdict, state})
	}
	return d.PrintTable(t)
}

// localIncidents reads each incident directory under root (real
// directories only: a symlink is never followed), newest last step first.
func localIncidents(root string) ([]lsIncident, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return []lsIncident{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []lsIncident{}
	for _, e := range entries {
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 || len(out) == maxLocalIncidents {
			continue
		}
		dir := filepath.Join(root, e.Name())
		evs, err := incident.ReadJSONLines[incident.Event](filepath.Join(dir, incident.EventsFile), nil)
		if err != nil || len(evs) == 0 {
			continue
		}
		first, last := evs[0], incident.LastStep(evs)
		out = append(out, lsIncident{Where: "local", Incident: dir, Queue: first.Queue, Started: first.Time, LastStep: last.Step, LastTime: last.Time,
			Verdict: last.Verdict, Closed: incident.Closes(last)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastTime.After(out[j].LastTime) })
	return out, nil
}
