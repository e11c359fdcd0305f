package report

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/mfdlq/mfdlq/changes"
	"github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/health"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/redact"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/verify"
)

// Incident is everything an incident directory holds, read once for the
// report. Each artifact is read with the type of the step that writes it, so
// a change of contract breaks the build, not the report. A field is nil when
// its step has not written its artifact.
type Incident struct {
	Dir            string
	Events         []incident.Event
	Contain        *contain.Result
	Samples        []sqsjson.Message
	Classification *classify.Classification
	Logs           *logsearch.Result
	Journal        []journal.Entry
	// Ledger is the journal read whole when it was compacted (its
	// completed messages are counts, not entries); nil otherwise.
	Ledger *journal.Ledger
	// Operators are the journal's runs and who ran each (its run
	// entries: the STS caller's ARN).
	Operators map[string]string
	Verify    *verify.Result
	Check     *check.Result
	Changes   *changes.Result
	// WhenOK is redrive --when-ok's waits file: its waits and pauses.
	WhenOK []health.Milestone
	// Problems are artifacts that exist but could not be read; the report
	// names them instead of failing.
	Problems []string

	red *redact.Redactor // set while rendering a redacted report
	now time.Time        // the report's time, while rendering
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
	inc.Contain = loadJSON[contain.Result](ws, incident.ContainFile, inc)
	inc.Classification = loadJSON[classify.Classification](ws, incident.ClassificationFile, inc)
	inc.Logs = loadJSON[logsearch.Result](ws, incident.LogsFile, inc)
	inc.Verify = loadJSON[verify.Result](ws, incident.VerifyFile, inc)
	inc.Check = loadJSON[check.Result](ws, incident.CheckFile, inc)
	inc.Changes = loadJSON[changes.Result](ws, incident.ChangesFile, inc)
	if b, err := ws.ReadFile(incident.SamplesFile); err == nil {
		msgs, err := sqsjson.ReadAll(bytes.NewReader(b))
		if err != nil {
			inc.Problems = append(inc.Problems, fmt.Sprintf("%s: %v", incident.SamplesFile, err))
		}
		inc.Samples = msgs
	}
	inc.Journal = loadJournal(ws.Path(incident.JournalFile))
	if recs, err := health.ReadWaits(ws); err != nil {
		inc.Problems = append(inc.Problems, fmt.Sprintf("%s: %v", incident.WaitsFile, err))
	} else {
		inc.WhenOK = recs
	}
	if l, err := journal.ReadLedger(ws.Path(incident.JournalFile), false); err == nil {
		inc.Operators = l.Operators()
		if l.Compacted() {
			inc.Ledger = l
		}
	}
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
func loadJournal(path string) []journal.Entry {
	// A compacted journal's header and digest lines name no message.
	lines, _ := incident.ReadJSONLines(path, func(e journal.Entry) bool { return e.Op != "" && e.DLQMessageID != "" })
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

// figuresOf is ev's figures, read leniently: the report says what decodes
// (a field of another type is left at zero).
func figuresOf[T any](ev incident.Event) T {
	var f T
	_ = ev.DecodeFigures(&f)
	return f
}

// RecordedChange is what the latest "fix" event says was changed.
func (inc *Incident) RecordedChange() string {
	ev, ok := inc.Latest(incident.StepFix)
	if !ok {
		return ""
	}
	return redrive.FixOf(ev)
}
