package triage

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/changes"
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// File is triage's artifact in the incident directory.
const File = "triage.json"

// Result is triage's answer: its --output json and triage.json. The first
// keys are the answer (verdict, alive, messages, groups, next); the rest
// say what each part saw and what was skipped.
type Result struct {
	// Verdict is classify's verdict on the sample; unknown without one.
	Verdict classify.Verdict `json:"verdict"`
	// Alive is contain's verdict: messages are still failing into the DLQ.
	Alive bool `json:"alive"`
	// Messages is what the DLQ held when contain read it: visible + in
	// flight + delayed.
	Messages int64 `json:"messages"`
	// Groups are classify's groups, largest first.
	Groups []Group `json:"groups"`
	// Next is the one command (or action) to take next.
	Next string `json:"next"`

	Queue      string    `json:"queue"`
	Account    string    `json:"account"`
	Region     string    `json:"region"`
	Time       time.Time `json:"time"`
	Confidence float64   `json:"confidence"`
	// Reasons are contain's, with the numbers.
	Reasons []string `json:"reasons"`
	// Source is the source queue read (the deepest when Sources > 1).
	Source  string `json:"source,omitempty"`
	Sources int    `json:"sources"`
	// Consumers are the functions whose mappings read the source.
	Consumers []string `json:"consumers"`
	// Sampled is how many messages were classified; SampleFrom says
	// whence: "live sample" (a peek) or samples.jsonl (the incident's).
	Sampled    int    `json:"sampled"`
	SampleFrom string `json:"sample_from,omitempty"`
	// LogGroups were searched; Logs is what they held.
	LogGroups []string      `json:"log_groups"`
	Logs      *LogsFound    `json:"logs"`
	Changes   *ChangesFound `json:"changes"`
	// Skipped are the parts that did not run, and why.
	Skipped []Skip `json:"skipped"`
	// Incident is the incident directory written.
	Incident string `json:"incident"`
}

// Group is one of classify's groups, in brief.
type Group struct {
	ID        string           `json:"id"`
	Verdict   classify.Verdict `json:"verdict"`
	Count     int              `json:"count"`
	Signature string           `json:"signature"`
	Pattern   string           `json:"pattern"`
	Source    string           `json:"source,omitempty"`
	Action    string           `json:"action"`
}

// LogsFound is what the logs part found.
type LogsFound struct {
	Searched int `json:"searched"`
	Found    int `json:"found"`
	// Exception is the first exception found, as logged.
	Exception string `json:"exception,omitempty"`
}

// ChangesFound is what the changes part found.
type ChangesFound struct {
	Verdict changes.Verdict `json:"verdict"`
	// Nearest says the change nearest the first failure, "" for none.
	Nearest string   `json:"nearest"`
	Unread  []string `json:"unread,omitempty"`
}

// Skip is a part that did not run; Step is the incident step it stands
// for (incident.StepContain…).
type Skip struct {
	Step   string `json:"step"`
	Reason string `json:"reason"`
}

// Inputs are the triage event's inputs.
type Inputs struct {
	Window    string   `json:"window"`
	Peek      int      `json:"peek"`
	LogGroups []string `json:"log_groups"`
	NoChanges bool     `json:"no_changes,omitempty"`
	Force     bool     `json:"force,omitempty"`
}

// Figures are the triage event's figures, read back with this type.
type Figures struct {
	Alive    bool     `json:"alive"`
	Messages int64    `json:"messages"`
	Sampled  int      `json:"sampled"`
	Groups   int      `json:"groups"`
	Skipped  []string `json:"skipped,omitempty"`
	Next     string   `json:"next"`
}

func newResult(q *sqsapi.Queue, ws *incident.Workspace, now time.Time) *Result {
	return &Result{Verdict: classify.VerdictUnknown, Groups: []Group{}, Queue: q.Name, Account: q.Account, Region: q.Region,
		Time: now.UTC(), Reasons: []string{}, Consumers: []string{}, LogGroups: []string{}, Skipped: []Skip{}, Incident: ws.Dir}
}

// summarise puts classify's verdict and groups into the answer.
func (t *run) summarise(c *classify.Classification) {
	res := t.res
	res.Verdict, res.Confidence = c.Verdict, c.Confidence
	for _, g := range c.Groups {
		res.Groups = append(res.Groups, Group{ID: g.ID, Verdict: g.Verdict, Count: g.Count, Signature: g.Signature,
			Pattern: g.Pattern, Source: g.Source, Action: g.Action})
	}
}

// next is the one thing to do next: stop the bleeding while it is alive,
// else what classify recommends, else find the exception.
func (t *run) next() string {
	q := t.q.Name
	res := t.res
	switch {
	case res.Alive && t.consuming():
		return fmt.Sprintf("mfdlq contain --queue %s --pause-mapping (still failing: stop the bleeding first)", q)
	case res.Alive:
		return fmt.Sprintf("mfdlq contain --queue %s (still failing: find and stop what feeds it)", q)
	case t.q.Chained() != "" && t.classed == nil:
		return fmt.Sprintf("mfdlq classify --queue %s --force (a peek counts as a receive here)", q)
	case res.Messages == 0 && res.Sampled == 0:
		return fmt.Sprintf("mfdlq verify --queue %s (the DLQ is empty)", q)
	case res.Verdict == classify.VerdictUnknown || len(res.Groups) == 0:
		if res.Logs == nil {
			return fmt.Sprintf("mfdlq logs --queue %s --log-group LOG_GROUP (the consumer's exception decides)", q)
		}
		return fmt.Sprintf("mfdlq classify --queue %s --expect FIELD=VALUE (what the consumer accepts)", q)
	}
	return res.Groups[0].Action
}

// consuming tells whether an enabled mapping reads the source: a pause
// stops the bleeding.
func (t *run) consuming() bool {
	for _, m := range t.mappings {
		if m.Enabled() {
			return true
		}
	}
	return false
}

// record writes triage.json and the triage event.
func (t *run) record() error {
	res := t.res
	if err := t.ws.WriteJSON(File, res); err != nil {
		return err
	}
	ev := t.event(Step)
	in := Inputs{Window: t.req.Window.String(), Peek: t.req.Peek, LogGroups: t.req.LogGroups, NoChanges: t.req.NoChanges, Force: t.req.Force}
	f := Figures{Alive: res.Alive, Messages: res.Messages, Sampled: res.Sampled, Groups: len(res.Groups), Next: res.Next}
	for _, s := range res.Skipped {
		f.Skipped = append(f.Skipped, s.Step)
	}
	if err := ev.Set(in, f); err != nil {
		return err
	}
	ev.Verdict, ev.Artifact = string(res.Verdict), File
	return t.ws.Append(ev)
}

// Headline is the answer in one line of plain words: the verdict, whether
// it is alive, the DLQ's count and its groups. It quotes no message data
// but AWS names; callers sanitise it for where it goes.
func (r *Result) Headline() string {
	alive := "not alive"
	if r.Alive {
		alive = "alive"
	}
	var groups []string
	for i, g := range r.Groups {
		if i == 3 {
			groups = append(groups, fmt.Sprintf("+%d more", len(r.Groups)-i))
			break
		}
		groups = append(groups, fmt.Sprintf("%s %s %d", g.ID, g.Verdict, g.Count))
	}
	s := fmt.Sprintf("%s: %s, %s, %s", r.Queue, r.Verdict, alive, plural.Of(int(r.Messages), "message"))
	if len(groups) > 0 {
		s += " (" + strings.Join(groups, ", ") + ")"
	}
	return s
}
