package health

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// WaitLine is a Status as the JSON line of type "waiting" that --output
// json (or a pipe) streams while a redrive waits (docs/redrive-when-ok.md);
// alarm names are JSON-encoded, not sanitised.
type WaitLine struct {
	Alarms        []AlarmLine `json:"alarms"`
	Error         string      `json:"error,omitempty"`
	GiveUpAt      time.Time   `json:"give_up_at"`
	LeftSeconds   float64     `json:"left_seconds"`
	Ready         bool        `json:"ready"`
	Time          time.Time   `json:"time"`
	Type          string      `json:"type"`
	WaitedSeconds float64     `json:"waited_seconds"`
}

// AlarmLine is one alarm of a WaitLine.
type AlarmLine struct {
	LeftSeconds float64 `json:"left_seconds"`
	Name        string  `json:"name"`
	// NoData is why an OK does not count (the alarm may be OK only
	// because its metric has no data); absent when it counts.
	NoData  string     `json:"no_data,omitempty"`
	OKSince *time.Time `json:"ok_since"`
	Since   time.Time  `json:"since"`
	State   string     `json:"state"`
	Type    string     `json:"type"`
}

// Line is st as its JSON line.
func (st Status) Line() WaitLine {
	l := WaitLine{Alarms: make([]AlarmLine, 0, len(st.Alarms)), Error: st.Error, GiveUpAt: st.GiveUpAt, LeftSeconds: seconds(st.Left),
		Ready: st.Ready, Time: st.Time, Type: "waiting", WaitedSeconds: seconds(st.Waited)}
	for _, a := range st.Alarms {
		al := AlarmLine{LeftSeconds: seconds(a.Left), Name: a.Name, NoData: a.NoData, Since: a.Since, State: a.State, Type: a.Type}
		if !a.OKSince.IsZero() {
			t := a.OKSince
			al.OKSince = &t
		}
		l.Alarms = append(l.Alarms, al)
	}
	return l
}

func seconds(d time.Duration) float64 { return math.Round(d.Seconds()*100) / 100 }

// maxShown is how many alarms a status line names; the rest are counted.
const maxShown = 3

// Text is st as the one status line a terminal shows while waiting:
// the alarms still short of --for first, names sanitised.
func (st Status) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "waiting %s", short(st.Waited))
	if st.Ready {
		b.WriteString(": every alarm OK for long enough")
		return b.String()
	}
	fmt.Fprintf(&b, ", %s left at best, gives up at %s:", short(st.Left), st.GiveUpAt.UTC().Format("15:04 UTC"))
	shown := 0
	for _, a := range st.Alarms {
		if a.Left == 0 {
			continue
		}
		if shown == maxShown {
			fmt.Fprintf(&b, " +%d more", notReady(st.Alarms)-maxShown)
			break
		}
		shown++
		b.WriteString(" " + a.Describe(st.Time))
	}
	if st.Error != "" {
		b.WriteString(" (last read failed, trying again)")
	}
	return b.String()
}

// Describe is one alarm for people: its state, since when, and what it
// still needs, at now.
func (a AlarmStatus) Describe(now time.Time) string {
	if a.State == StateOK && a.NoData != "" {
		return fmt.Sprintf("%s OK without data, not counted", Quote(a.Name))
	}
	if a.State == StateOK {
		if a.Left == 0 {
			return fmt.Sprintf("%s OK for %s", Quote(a.Name), short(now.Sub(a.OKSince)))
		}
		return fmt.Sprintf("%s OK, %s left", Quote(a.Name), short(a.Left))
	}
	return fmt.Sprintf("%s %s since %s", Quote(a.Name), a.State, a.Since.UTC().Format("15:04:05 UTC"))
}

func notReady(alarms []AlarmStatus) int {
	n := 0
	for _, a := range alarms {
		if a.Left > 0 {
			n++
		}
	}
	return n
}

// short is a duration for a status line: 4m10s, 2h05m, 45s.
func short(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%ds", int(d.Seconds()))
}
