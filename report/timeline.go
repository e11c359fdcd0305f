package report

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/notify"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/redrive/consumer"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// moment is one row of the timeline; what is encoded already.
type moment struct {
	at   time.Time
	what string
}

// writeTimeline lists the incident in time order: the first and last
// failure the messages show, when an alarm would have fired, then every
// step, the fix among them.
func (inc *Incident) writeTimeline(b *strings.Builder) {
	var ms []moment
	queue := inc.plain(orDash(inc.queueEvent().Queue), maxName)
	if a, ok := inc.alarmTime(); ok {
		ms = append(ms, moment{a.first, "first failure: the earliest message now in the DLQ was sent"})
		// An alarm time past the report's own is no moment yet: the
		// summary says it as a delay from the first failure.
		if inc.now.IsZero() || !a.at.After(inc.now) {
			ms = append(ms, moment{a.at, fmt.Sprintf("an alarm on %s > 0 would have fired (approximate)", queue)})
		}
	}
	if c := inc.Classification; c != nil && c.LastSent != nil && !c.LastSent.IsZero() && (c.FirstSent == nil || !c.LastSent.Truncate(time.Second).Equal(c.FirstSent.Truncate(time.Second))) {
		ms = append(ms, moment{c.LastSent.UTC(), "the latest message now in the DLQ was sent"})
	}
	for _, ev := range inc.Events {
		if what := inc.eventLine(ev); what != "" {
			ms = append(ms, moment{ev.Time.UTC(), what})
		}
	}
	ms = append(ms, inc.whenOKMoments()...)
	if len(ms) == 0 {
		return
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].at.Before(ms[j].at) })
	b.WriteString("## Timeline\n\n| UTC | what happened, what was done |\n|---|---|\n")
	n, more := cappedAt(len(ms), 4*maxItems, "event", incident.EventsFile)
	for _, m := range ms[:n] {
		fmt.Fprintf(b, "| %s | %s |\n", inc.clock(m.at), m.what)
	}
	b.WriteString(more)
	b.WriteString("\n")
}

// noteLine is a note written or cleared on the DLQ: a person's claim, in
// their words — untrusted (anyone who may tag the queue wrote it), so
// encoded, redacted and bounded like any text from AWS.
func (inc *Incident) noteLine(ev incident.Event) string {
	f := figuresOf[note.Figures](ev)
	who := func(n *note.Note) string {
		if n == nil {
			return "-"
		}
		return inc.plain(orDash(n.Author), maxName)
	}
	switch {
	case f.Action == note.ActionClear && f.Replaced != nil:
		return fmt.Sprintf("note cleared (it was %s's: %s)", who(f.Replaced), inc.plain(f.Replaced.Text, maxName+100))
	case f.Action == note.ActionClear:
		return "note cleared"
	case f.Note != nil:
		return fmt.Sprintf("note by %s: %s", who(f.Note), inc.plain(f.Note.Text, maxName+100))
	}
	return "note"
}

// eventLine is one step's event in a few words, encoded; "" for events the
// timeline leaves out (the consumers a step noted on the side).
func (inc *Incident) eventLine(ev incident.Event) string {
	step := inc.plain(ev.Step, maxName)
	verdict := ""
	if ev.Verdict != "" {
		verdict = " **" + inc.plain(plural.Spoken(ev.Verdict), maxName) + "**"
	}
	switch ev.Step {
	case consumer.Step, "":
		return ""
	case incident.StepContain:
		return inc.containLine(ev, verdict)
	case incident.StepInspect:
		f := figuresOf[sqsapi.InspectFigures](ev)
		return fmt.Sprintf("inspect: peeked at %d of %d visible messages", f.Sampled, f.Visible)
	case incident.StepClassify:
		return inc.classifyLine(ev, verdict)
	case incident.StepLogs:
		f := figuresOf[logsearch.Figures](ev)
		return fmt.Sprintf("logs: found %d of %s in the consumer's logs", f.Found, plural.Of(f.Searched, "message"))
	case incident.StepExport:
		f := figuresOf[archive.Figures](ev)
		return fmt.Sprintf("export: %s archived, %d deleted from the DLQ", plural.Of(f.Exported, "message"), f.Deleted)
	case incident.StepFix:
		return "fix recorded: " + inc.plain(orDash(redrive.FixOf(ev)), maxOperator)
	case incident.StepRedrive:
		return inc.redriveLine(ev)
	case incident.StepVerify:
		return "verify:" + verdict
	case incident.StepCheck:
		f := figuresOf[check.Figures](ev)
		return fmt.Sprintf("check:%s — %d failed, %d warned, %d passed", verdict, f.Fail, f.Warn, f.Pass)
	case incident.StepChanges:
		return "changes: read what changed in the account around the first failure"
	case incident.StepRecord:
		return "record: a report was written"
	case "note":
		return inc.noteLine(ev)
	case "notify":
		return inc.notifyLine(ev)
	}
	return step + ":" + verdict
}

// containLine is contain's event: the Lambda mapping it changed, or what
// it measured of the DLQ.
func (inc *Incident) containLine(ev incident.Event, verdict string) string {
	var f contain.ChangeFigures
	if ev.DecodeFigures(&f) == nil && f.MappingChange != nil {
		c := f.MappingChange
		dry := ""
		if c.DryRun {
			dry = " (dry run)"
		}
		return fmt.Sprintf("contain: %s of the Lambda mapping %s (%s)%s", inc.plain(c.Action, maxName), inc.plain(c.UUID, maxName), inc.plain(c.Function, maxName), dry)
	}
	m := figuresOf[contain.Figures](ev)
	return fmt.Sprintf("contain:%s — %d visible in the DLQ, %s", verdict, m.Visible, inc.plain(orDash(m.Trend), maxName))
}

// classifyLine is classify's event, with the look it kept a verdict
// against.
func (inc *Incident) classifyLine(ev incident.Event, verdict string) string {
	f := figuresOf[classify.Figures](ev)
	line := fmt.Sprintf("classify:%s — %s in %s", verdict, plural.Of(f.Messages, "message"), plural.Of(f.Groups, "group"))
	if j := f.Judgement; j != nil && j.Kept {
		// A look with less evidence than the verdict: shown, not saved.
		line += fmt.Sprintf(" (kept: a look of %s said %s, with less evidence)", inc.plain(j.LookSample, maxName), inc.plain(string(j.Look), maxName))
	}
	return line
}

// redriveLine is a redrive's event: what moved where, and whether it
// stopped.
func (inc *Incident) redriveLine(ev incident.Event) string {
	f := redrive.FiguresOf(ev)
	t := fmt.Sprintf("redrive: %s moved to %s", plural.Of(f.Moved, "message"), inc.plain(orDash(f.DestQueue), maxName))
	if end := inc.moveEndOf(f, inc.plain(orDash(ev.Queue), maxName)); end.stopped() {
		// How and with what left: the latest is the table's redrive
		// row; an earlier one is said in full here.
		if latest, ok := inc.Latest(incident.StepRedrive); ok && latest.Time.Equal(ev.Time) {
			t += " — stopped"
		} else {
			t += " — stopped: " + end.stop
		}
	}
	return t
}

// notifyLine is a notification's event: who was told, or why not.
func (inc *Incident) notifyLine(ev incident.Event) string {
	f := figuresOf[notify.Figures](ev)
	if f.Sent {
		return fmt.Sprintf("notify: told %s that %s ended", inc.plain(orDash(f.Target), maxName), inc.plain(orDash(f.Step), maxName))
	}
	return fmt.Sprintf("notify: telling %s that %s ended failed (%s)", inc.plain(orDash(f.Target), maxName), inc.plain(orDash(f.Step), maxName), inc.plain(orDash(f.Error), maxName))
}
