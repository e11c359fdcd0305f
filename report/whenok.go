package report

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/health"
)

// whenOKMoments are the timeline's rows of redrive --when-ok, from its
// waits file: each wait's start (or resume), each alarm turning OK, each
// pause of the move, each wait's end, and when the move's watch could not
// read the alarms.
func (inc *Incident) whenOKMoments() []moment {
	var ms []moment
	for _, r := range inc.WhenOK {
		if what := inc.whenOKLine(r); what != "" {
			ms = append(ms, moment{r.Time.UTC(), what})
		}
	}
	return ms
}

// whenOKLine is one milestone of the waits file in words; "" for one the
// timeline leaves out.
func (inc *Incident) whenOKLine(r health.Milestone) string {
	switch r.Type {
	case health.MilestoneWait, health.MilestoneResume:
		return inc.whenOKWaitLine(r)
	case health.MilestoneState:
		return inc.whenOKStateLine(r)
	case health.MilestoneBlind:
		return "redrive --when-ok: the alarms could not be read (" + inc.plain(r.Note, maxName) + "): the move went on"
	case health.MilestoneSeeing:
		return "redrive --when-ok: the alarms were read again"
	case health.MilestoneEnd:
		return inc.whenOKEndLine(r)
	}
	return ""
}

// whenOKWaitLine is a wait's start or resume: what it waits for, and how
// long.
func (inc *Incident) whenOKWaitLine(r health.Milestone) string {
	names := make([]string, 0, len(r.Alarms))
	for i, a := range r.Alarms {
		if i == 3 {
			names = append(names, fmt.Sprintf("%d more", len(r.Alarms)-3))
			break
		}
		names = append(names, inc.plain(a, maxName))
	}
	what := "waiting"
	if r.Kind == health.KindPause {
		what = "paused, waiting"
	}
	if r.Type == health.MilestoneResume {
		what = "a rerun took up the wait begun " + r.Started.UTC().Format("15:04:05") + ", waiting"
	}
	return fmt.Sprintf("redrive --when-ok: %s for %s to be OK for %s (gives up after %s)", what, strings.Join(names, ", "),
		inc.plain(r.For, maxName), inc.plain(r.GiveUp, maxName))
}

// whenOKStateLine is an alarm's change that paused the move or counts
// towards the wait; "" for the others.
func (inc *Incident) whenOKStateLine(r health.Milestone) string {
	switch {
	case r.Kind == health.KindPause && r.Alarm != "":
		return fmt.Sprintf("redrive --when-ok: %s is %s: the move stopped sending", inc.plain(r.Alarm, maxName), inc.plain(r.State, maxName))
	case r.Kind == health.KindPause:
		return "redrive --when-ok: the alarms could not be read: the move stopped sending (" + inc.plain(r.Note, maxName) + ")"
	case r.State == health.StateOK && r.NoData != "":
		return fmt.Sprintf("redrive --when-ok: %s is OK without data, not counted", inc.plain(r.Alarm, maxName))
	case r.State == health.StateOK:
		return fmt.Sprintf("redrive --when-ok: %s is OK", inc.plain(r.Alarm, maxName))
	}
	return ""
}

// whenOKEndLine is how a wait ended.
func (inc *Incident) whenOKEndLine(r health.Milestone) string {
	switch r.Outcome {
	case health.OutcomeOK:
		return "redrive --when-ok: every alarm OK for long enough: the move goes on"
	case health.OutcomeGaveUp:
		return "redrive --when-ok: gave up waiting; what was not moved stays in the DLQ"
	case health.OutcomeInterrupted:
		return "redrive --when-ok: the wait was interrupted (Ctrl-C)"
	}
	return "redrive --when-ok: the wait failed: " + inc.plain(r.Note, maxName)
}
