package health

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/untrusted"
)

// Milestone types.
const (
	// MilestoneWait is a wait's start: before the move, or a pause.
	MilestoneWait = "wait"
	// MilestoneResume is a wait taken up again by a later run.
	MilestoneResume = "resume"
	// MilestoneState is an alarm seen in a state other than the last one
	// written for it.
	MilestoneState = "state"
	// MilestoneEnd is a wait's end; Outcome says how.
	MilestoneEnd = "end"
	// MilestoneBlind is a watch's first failed read of a streak during the
	// move (Note: why); the move goes on for up to WatchBlind.
	MilestoneBlind = "blind"
	// MilestoneSeeing is the watch's first good read after MilestoneBlind
	// (Started: when the reads began to fail).
	MilestoneSeeing = "seeing"
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

// Milestone is one line of the waits file. Alarm names are kept as CloudWatch
// has them; readers sanitise them on the way out.
type Milestone struct {
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
	// NoData is an OK that did not count: why (AlarmStatus.NoData).
	NoData string `json:"no_data,omitempty"`
	// end
	Outcome string `json:"outcome,omitempty"`
	Note    string `json:"note,omitempty"`
}

// Waits appends a wait's milestones to the incident directory, one synced
// write a line (a SIGKILL leaves whole lines), 0600 through the incident
// package (never through a symlink).
type Waits struct {
	ws  *incident.Workspace
	mu  sync.Mutex
	was map[string]string // the last state written, per alarm
}

// OpenWaits returns the waits file of ws; it creates nothing until the
// first record.
func OpenWaits(ws *incident.Workspace) *Waits {
	return &Waits{ws: ws, was: map[string]string{}}
}

// Start writes a wait's start: kind, the gate's settings, and started —
// now for a new wait, the first start for a resumed one (then the mark
// is a resume).
func (j *Waits) Start(kind string, opts Options, run string, started, now time.Time) error {
	typ := MilestoneWait
	if !started.Equal(now) {
		typ = MilestoneResume
	}
	return j.append(Milestone{Type: typ, Time: now.UTC(), Kind: kind, Alarms: opts.Alarms, For: opts.For.String(),
		GiveUp: opts.GiveUp.String(), Started: started.UTC(), Run: run})
}

// Observe writes each alarm of st whose state differs from the last one
// written for it.
func (j *Waits) Observe(st Status) error {
	for _, a := range st.Alarms {
		seen := a.State
		if a.NoData != "" {
			seen += " without data"
		}
		j.mu.Lock()
		same := j.was[a.Name] == seen
		j.was[a.Name] = seen
		j.mu.Unlock()
		if same {
			continue
		}
		if err := j.append(Milestone{Type: MilestoneState, Time: st.Time, Alarm: a.Name, AlarmType: a.Type, State: a.State, Since: a.Since, NoData: a.NoData}); err != nil {
			return err
		}
	}
	return nil
}

// Pause writes a break seen during the move: the pause's wait follows.
func (j *Waits) Pause(b Break) error {
	note := ""
	if b.Err != nil {
		note = b.Err.Error()
	}
	if b.Alarm != "" {
		j.mu.Lock()
		j.was[b.Alarm] = b.State
		j.mu.Unlock()
	}
	return j.append(Milestone{Type: MilestoneState, Time: b.Time, Kind: KindPause, Alarm: b.Alarm, State: b.State, Note: note})
}

// Blind writes that the watch began failing to read the alarms at t.
func (j *Waits) Blind(t time.Time, err error) error {
	return j.append(Milestone{Type: MilestoneBlind, Time: t.UTC(), Note: err.Error()})
}

// Seeing writes that the watch read the alarms again at t after failing
// since since.
func (j *Waits) Seeing(t, since time.Time) error {
	return j.append(Milestone{Type: MilestoneSeeing, Time: t.UTC(), Started: since.UTC()})
}

// End writes a wait's end.
func (j *Waits) End(outcome, note string, now time.Time) error {
	return j.append(Milestone{Type: MilestoneEnd, Time: now.UTC(), Outcome: outcome, Note: note})
}

func (j *Waits) append(r Milestone) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode %s record: %w", incident.WaitsFile, err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.ws.AppendLine(incident.WaitsFile, untrusted.JSON(b)) // as every JSON line mfdlq writes
}

// ReadWaits reads the waits file of ws (empty when there is none); a torn
// last line is skipped.
func ReadWaits(ws *incident.Workspace) ([]Milestone, error) {
	return incident.ReadJSONLines[Milestone](ws.Path(incident.WaitsFile), nil)
}

// Unfinished is a wait a killed run left: when it began, and per alarm
// the last moment it was seen out of OK.
type Unfinished struct {
	Started time.Time
	// Floors feed Gate.Floor.
	Floors map[string]time.Time
}

// Resumable finds the latest wait on the same alarms (in any order) that
// has no end: a run killed while waiting. ok is false when there is none —
// the last wait ended (OK, gave up, Ctrl-C), or waited on other alarms.
func Resumable(records []Milestone, alarms []string) (Unfinished, bool) {
	start := -1
	for i, r := range records {
		switch r.Type {
		case MilestoneWait, MilestoneResume:
			start = i
		case MilestoneEnd:
			start = -1
		}
	}
	if start < 0 || !sameSet(records[start].Alarms, alarms) {
		return Unfinished{}, false
	}
	u := Unfinished{Started: records[start].Started, Floors: map[string]time.Time{}}
	if u.Started.IsZero() {
		u.Started = records[start].Time
	}
	state := map[string]string{}
	for _, r := range records {
		if r.Type != MilestoneState || r.Alarm == "" {
			continue
		}
		// An OK without data is out of OK for the streak.
		seen := r.State
		if r.NoData != "" {
			seen = "no data"
		}
		if seen != StateOK || (state[r.Alarm] != "" && state[r.Alarm] != StateOK) {
			u.Floors[r.Alarm] = r.Time
		}
		state[r.Alarm] = seen
	}
	return u, true
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}
