package health

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

// JournalFile is the wait's journal in the incident directory.
const JournalFile = "when-ok.jsonl"

// Record types of the journal.
const (
	// RecordWait is a wait's start: before the move, or a pause.
	RecordWait = "wait"
	// RecordResume is a wait taken up again by a later run.
	RecordResume = "resume"
	// RecordState is an alarm seen in a state other than the last one
	// journaled for it.
	RecordState = "state"
	// RecordEnd is a wait's end; Outcome says how.
	RecordEnd = "end"
)

// Why a wait began.
const (
	KindBeforeMove = "before_move"
	KindPause      = "pause"
)

// Outcomes of a wait.
const (
	OutcomeOK          = "ok"
	OutcomeGaveUp      = "gave_up"
	OutcomeInterrupted = "interrupted"
	OutcomeFailed      = "failed"
)

// Record is one line of the journal. Alarm names are kept as CloudWatch
// has them; readers sanitise them on the way out.
type Record struct {
	Type string    `json:"type"`
	Time time.Time `json:"time"`
	// wait and resume
	Kind    string    `json:"kind,omitempty"`
	Alarms  []string  `json:"alarms,omitempty"`
	For     string    `json:"for,omitempty"`
	GiveUp  string    `json:"give_up,omitempty"`
	Started time.Time `json:"started,omitzero"`
	Run     string    `json:"run,omitempty"`
	// state (and the alarm that broke a pause)
	Alarm     string    `json:"alarm,omitempty"`
	AlarmType string    `json:"alarm_type,omitempty"`
	State     string    `json:"state,omitempty"`
	Since     time.Time `json:"since,omitzero"`
	// end
	Outcome string `json:"outcome,omitempty"`
	Note    string `json:"note,omitempty"`
}

// Journal appends a wait's records to the incident directory, one synced
// write a line (a SIGKILL leaves whole lines), 0600 through the incident
// package (never through a symlink).
type Journal struct {
	ws  *incident.Workspace
	mu  sync.Mutex
	was map[string]string // the last state journaled, per alarm
}

// OpenJournal returns the journal of ws; it creates nothing until the
// first record.
func OpenJournal(ws *incident.Workspace) *Journal {
	return &Journal{ws: ws, was: map[string]string{}}
}

// Start journals a wait's start: kind, the gate's settings, and started —
// now for a new wait, the first start for a resumed one (then the record
// is a resume).
func (j *Journal) Start(kind string, opts Options, run string, started, now time.Time) error {
	typ := RecordWait
	if !started.Equal(now) {
		typ = RecordResume
	}
	return j.append(Record{Type: typ, Time: now.UTC(), Kind: kind, Alarms: opts.Alarms, For: opts.For.String(),
		GiveUp: opts.GiveUp.String(), Started: started.UTC(), Run: run})
}

// Observe journals each alarm of st whose state differs from the last one
// journaled for it.
func (j *Journal) Observe(st Status) error {
	for _, a := range st.Alarms {
		j.mu.Lock()
		same := j.was[a.Name] == a.State
		j.was[a.Name] = a.State
		j.mu.Unlock()
		if same {
			continue
		}
		if err := j.append(Record{Type: RecordState, Time: st.Time, Alarm: a.Name, AlarmType: a.Type, State: a.State, Since: a.Since}); err != nil {
			return err
		}
	}
	return nil
}

// Pause journals a break seen during the move: the pause's wait follows.
func (j *Journal) Pause(b Break) error {
	note := ""
	if b.Err != nil {
		note = b.Err.Error()
	}
	if b.Alarm != "" {
		j.mu.Lock()
		j.was[b.Alarm] = b.State
		j.mu.Unlock()
	}
	return j.append(Record{Type: RecordState, Time: b.Time, Kind: KindPause, Alarm: b.Alarm, State: b.State, Note: note})
}

// End journals a wait's end.
func (j *Journal) End(outcome, note string, now time.Time) error {
	return j.append(Record{Type: RecordEnd, Time: now.UTC(), Outcome: outcome, Note: note})
}

func (j *Journal) append(r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode %s record: %w", JournalFile, err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	f, err := j.ws.OpenAppend(JournalFile)
	if err != nil {
		return fmt.Errorf("open %s: %w", JournalFile, err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("append to %s: %w", JournalFile, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", JournalFile, err)
	}
	return f.Close()
}

// ReadJournal reads the journal of ws (empty when there is none); a torn
// last line is skipped.
func ReadJournal(ws *incident.Workspace) ([]Record, error) {
	return incident.ReadJSONLines[Record](ws.Path(JournalFile), nil)
}

// Unfinished is a wait a killed run left: when it began, and per alarm
// the last moment it was seen out of OK.
type Unfinished struct {
	Kind    string
	Started time.Time
	// Floors feed Gate.Floor.
	Floors map[string]time.Time
}

// Resumable finds the latest wait on the same alarms (in any order) that
// has no end: a run killed while waiting. ok is false when there is none —
// the last wait ended (OK, gave up, Ctrl-C), or waited on other alarms.
func Resumable(records []Record, alarms []string) (Unfinished, bool) {
	start := -1
	for i, r := range records {
		switch r.Type {
		case RecordWait, RecordResume:
			start = i
		case RecordEnd:
			start = -1
		}
	}
	if start < 0 || !sameSet(records[start].Alarms, alarms) {
		return Unfinished{}, false
	}
	u := Unfinished{Kind: records[start].Kind, Started: records[start].Started, Floors: map[string]time.Time{}}
	if u.Started.IsZero() {
		u.Started = records[start].Time
	}
	state := map[string]string{}
	for _, r := range records {
		if r.Type != RecordState || r.Alarm == "" {
			continue
		}
		if r.State != StateOK || (state[r.Alarm] != "" && state[r.Alarm] != StateOK) {
			u.Floors[r.Alarm] = r.Time
		}
		state[r.Alarm] = r.State
	}
	return u, true
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}
