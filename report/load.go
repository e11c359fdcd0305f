package report

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/logsearch"
	"io/fs"
	"time"

	"github.com/mfdlq/mfdlq/redact"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Incident is everything an incident directory holds, read once for the
// report. A field is nil when its step has not written its artifact.
type Incident struct {
	Dir            string
	Events         []incident.Event
	Contain        *ContainArtifact
	Samples        []sqsjson.Message
	Classification *ClassificationArtifact
	Logs           *LogsArtifact
	Journal        []JournalLine
	Verify         *VerifyArtifact
	Check          *CheckArtifact
	// Problems are artifacts that exist but could not be read; the report
	// names them instead of failing.
	Problems []string

	red *redact.Redactor // set while rendering a redacted report
}

// ContainArtifact is contain.json (issue 5's JSON contract).
type ContainArtifact struct {
	Alive   bool     `json:"alive"`
	Verdict string   `json:"verdict"`
	Reasons []string `json:"reasons"`
	DLQ     struct {
		Visible   *int     `json:"visible"`
		InFlight  *int     `json:"in_flight"`
		Trend     string   `json:"trend"`
		From      *float64 `json:"from"`
		To        *float64 `json:"to"`
		PerMinute *float64 `json:"per_minute"`
		Source    string   `json:"source"`
		Window    string   `json:"window"`
	} `json:"dlq"`
	Source *struct {
		Queue              string   `json:"queue"`
		Visible            *int     `json:"visible"`
		InFlight           *int     `json:"in_flight"`
		AgeOfOldestSeconds *float64 `json:"age_of_oldest_seconds"`
		NormalAgeSeconds   *float64 `json:"normal_age_of_oldest_seconds"`
	} `json:"source"`
	Mappings []map[string]any `json:"mappings"`
	Change   map[string]any   `json:"change"`
}

// The report reads each artifact with the type of the step that writes it,
// so a change of contract breaks the build, not the report.
type (
	// ClassificationArtifact is classification.json.
	ClassificationArtifact = classify.Classification
	// ClassificationGroup is one group of classification.json.
	ClassificationGroup = classify.Group
	// LogsArtifact is logs.json.
	LogsArtifact = logsearch.Report
	// LogsMessage is one message's entry of logs.json.
	LogsMessage = logsearch.Record
)

// JournalLine is the part of a redrive journal entry the report summarises.
type JournalLine struct {
	Time         time.Time `json:"time"`
	Run          string    `json:"run"`
	Op           string    `json:"op"`
	DLQMessageID string    `json:"dlq_message_id"`
	DestQueue    string    `json:"dest_queue"`
}

// VerifyArtifact is verify.json (issue 5).
type VerifyArtifact struct {
	Pass       bool             `json:"pass"`
	Verdict    string           `json:"verdict"`
	DLQVisible *int             `json:"dlq_visible"`
	Returned   []map[string]any `json:"returned"`
	Reasons    []string         `json:"reasons"`
	Moved      *int             `json:"moved"`
	DestQueue  string           `json:"dest_queue"`
	Looks      int              `json:"looks"`
	Waited     float64          `json:"waited_seconds"`
}

// CheckArtifact is check.json (issue 5): the safeguards' findings.
type CheckArtifact struct {
	Findings []CheckFinding `json:"findings"`
}

// CheckFinding is one safeguard's status and fix.
type CheckFinding struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Title   string `json:"title"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
}

// LoadIncident reads the events and every artifact of ws. Only an
// unreadable events.jsonl is an error; a damaged artifact is noted in
// Problems and its section says so.
func LoadIncident(ws *incident.Workspace) (*Incident, error) {
	events, err := ws.Events()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", incident.EventsFile, err)
	}
	inc := &Incident{Dir: ws.Dir, Events: events}
	inc.Contain = loadJSON[ContainArtifact](ws, incident.ContainFile, inc)
	inc.Classification = loadJSON[ClassificationArtifact](ws, incident.ClassificationFile, inc)
	inc.Logs = loadJSON[LogsArtifact](ws, incident.LogsFile, inc)
	inc.Verify = loadJSON[VerifyArtifact](ws, incident.VerifyFile, inc)
	inc.Check = loadJSON[CheckArtifact](ws, incident.CheckFile, inc)
	if b, err := ws.ReadFile(incident.SamplesFile); err == nil {
		msgs, err := sqsjson.ReadAll(bytes.NewReader(b))
		if err != nil {
			inc.Problems = append(inc.Problems, fmt.Sprintf("%s: %v", incident.SamplesFile, err))
		}
		inc.Samples = msgs
	}
	inc.Journal = loadJournal(ws.Path(incident.JournalFile))
	return inc, nil
}

func loadJSON[T any](ws *incident.Workspace, name string, inc *Incident) *T {
	var v T
	err := ws.ReadJSON(name, &v)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		inc.Problems = append(inc.Problems, fmt.Sprintf("%s could not be read: %v", name, err))
		return nil
	}
	return &v
}

// loadJournal reads the journal leniently: a torn line is skipped, as the
// redrive itself does.
func loadJournal(path string) []JournalLine {
	lines, _ := incident.ReadJSONLines(path, func(l JournalLine) bool { return l.Op != "" })
	return lines
}

// Latest returns the most recent event of step.
func (inc *Incident) Latest(step string) (incident.Event, bool) {
	for i := len(inc.Events) - 1; i >= 0; i-- {
		if inc.Events[i].Step == step {
			return inc.Events[i], true
		}
	}
	return incident.Event{}, false
}

// RecordedChange is what the latest "fix" event says was changed.
func (inc *Incident) RecordedChange() string {
	ev, ok := inc.Latest("fix")
	if !ok {
		return ""
	}
	s, _ := ev.Inputs["change"].(string)
	return s
}

// Warnings are check's findings that did not pass, as one line each: what
// would have warned earlier.
func (inc *Incident) Warnings() []string {
	if inc.Check == nil {
		return nil
	}
	var out []string
	for _, f := range inc.Check.Findings {
		if f.Status == "pass" || f.Status == "skip" {
			// A skip is a finding check could not judge: it warned of nothing.
			continue
		}
		text := firstNonEmpty(f.Title, f.Message, f.ID)
		if f.Fix != "" {
			text += " — fix: " + f.Fix
		}
		out = append(out, fmt.Sprintf("%s (%s)", text, f.Status))
	}
	return out
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
