package report

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/redrive/window"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// writeSummary is the numbers of the first screen, one table: how many,
// what it was, what caused it, what was changed, whether the redrive and
// verify worked, and when an alarm would have told someone. The answer
// above it says the same in words, without the figures.
func (inc *Incident) writeSummary(b *strings.Builder, o ReportOptions, res *ReportResult) {
	b.WriteString("| | |\n|---|---|\n")
	for _, r := range inc.summarize(o, res) {
		fmt.Fprintf(b, "| %s | %s |\n", r[0], r[1])
	}
	inc.writeChangeSummary(b)
	n, more := capped(len(inc.Problems), "problem")
	if n > 0 {
		b.WriteString("\n")
	}
	for _, p := range inc.Problems[:n] {
		fmt.Fprintf(b, "- problem: %s\n", inc.plain(p, maxValue))
	}
	b.WriteString(more)
	b.WriteString("\n")
}

// summarize is the table's rows, every value already encoded.
func (inc *Incident) summarize(o ReportOptions, res *ReportResult) [][2]string {
	var rows [][2]string
	queue := inc.plain(orDash(inc.queueEvent().Queue), maxName)
	if n, from := inc.messageCount(); n >= 0 {
		rows = append(rows, [2]string{"messages", fmt.Sprintf("%d in %s (%s)", n, queue, from)})
	} else {
		rows = append(rows, [2]string{"messages", "unknown (no step counted them)"})
	}
	rows = append(rows, [2]string{"verdict", cmp.Or(inc.verdictText(), "not classified")})
	rows = append(rows, [2]string{"cause", inc.todo(o.Cause, "cause", "what caused it", res)})
	rows = append(rows, [2]string{"change", inc.todo(cmp.Or(o.Change, inc.RecordedChange()), "fixed", "what was changed", res)})
	if r := inc.redriveText(); r != "" {
		row := "moved " + r
		if end := inc.latestEnd(); end.stopped() {
			// A stop said first: the figures alone read as a success.
			row = "**stopped**: " + end.stop + "; " + row
			if end.left != "" {
				row += "; now " + end.left
			}
		}
		rows = append(rows, [2]string{"redrive", row})
	} else {
		rows = append(rows, [2]string{"redrive", "not run"})
	}
	rows = append(rows, [2]string{"verify", cmp.Or(inc.verifyText(), "not run")})
	if a, ok := inc.alarmTime(); ok {
		rows = append(rows, [2]string{"first failure", fmt.Sprintf("%s (%s)", stamp(a.first, inc.now), a.firstFrom)})
		began, _ := inc.eventSpan()
		rows = append(rows, [2]string{"alarm", a.sentence(queue, began, inc.now)})
	} else {
		rows = append(rows, [2]string{"first failure", "unknown (no SentTimestamp: run mfdlq inspect or classify)"})
	}
	return rows
}

// messageCount is how many messages the DLQ held, from the step that
// measured the whole queue: contain, else inspect; classify's count is only
// its sample, unless nothing else counted.
func (inc *Incident) messageCount() (int, string) {
	if inc.Contain != nil {
		return int(inc.Contain.DLQ.Visible), "visible at contain"
	}
	if ev, ok := inc.Latest(incident.StepInspect); ok {
		var f sqsapi.InspectFigures
		if ev.DecodeFigures(&f) == nil && len(ev.Figures) > 0 {
			return int(f.Visible), "visible at inspect"
		}
	}
	if inc.Classification != nil && inc.Classification.Messages > 0 {
		return inc.Classification.Messages, "classified"
	}
	return -1, ""
}

// verdictText is classify's verdict with its groups' fingerprints, encoded;
// "" when classify did not run.
func (inc *Incident) verdictText() string {
	ev, ok := inc.Latest(incident.StepClassify)
	if !ok || ev.Verdict == "" {
		return ""
	}
	v := "**" + inc.plain(plural.Spoken(ev.Verdict), maxName) + "**"
	c := inc.Classification
	if c == nil {
		return v
	}
	v += fmt.Sprintf(" (%s classified", plural.Of(c.Messages, "message"))
	var parts []string
	for _, g := range c.Groups {
		if g.Fingerprint != "" {
			parts = append(parts, inc.plain(cmp.Or(g.ID, string(g.Verdict)), maxName)+": "+inc.fingerprint(g.Fingerprint))
		}
	}
	if len(parts) > 0 {
		v += "; " + joinBounded(parts, "; ", maxLine/4)
	}
	return v + ")"
}

// redriveText says what the latest redrive moved, where, how fast.
func (inc *Incident) redriveText() string {
	ev, ok := inc.Latest(incident.StepRedrive)
	if !ok {
		return ""
	}
	f, in := redrive.FiguresOf(ev), redrive.InputsOf(ev)
	dest := inc.plain(orDash(cmp.Or(f.DestQueue, in.To)), maxName)
	t := fmt.Sprintf("%s to %s", plural.Of(f.Moved, "message"), dest)
	rate := in.Rate
	if rate == "" && f.Rate > 0 {
		rate = fmt.Sprint(f.Rate)
	}
	switch rate {
	case "":
	case "max":
		t += " at the highest rate"
	default:
		t += " at " + inc.plain(rate, maxName) + " msg/s"
	}
	if f.DurationSeconds > 0 {
		t += fmt.Sprintf(" in %s (%.1f msg/s achieved)", human(f.Duration()), f.AchievedRate)
	}
	if a := max(f.Attempt, 1); a > 1 {
		t += fmt.Sprintf(", attempt %d", a)
	}
	var left []string
	for _, c := range []struct {
		n    int
		what string
	}{{f.Failed, "failed"}, {f.Skipped, "skipped"}, {f.FilterErrors, "filter errors"}, {f.Returned, "came back earlier and were left"}, {f.PendingDelete, "sent but not yet deleted"}} {
		if c.n > 0 {
			left = append(left, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(left) > 0 {
		t += "; " + strings.Join(left, ", ")
	}
	return t + inc.windowText(f.Idempotency) + dedupeText(f.Dedupe)
}

// windowText says the consumer's idempotency window the redrive weighed
// and what it did with the messages beyond it; "" without a store.
func (inc *Incident) windowText(w *window.Figures) string {
	if w == nil {
		return ""
	}
	t := "; idempotency store " + inc.plain(w.Table, maxName)
	if w.WindowSeconds <= 0 {
		return t + ", window not known"
	}
	win := idempotency.WindowText(time.Duration(w.WindowSeconds * float64(time.Second)))
	if w.Estimated {
		win = "at least " + win
	}
	t += ", window " + win
	switch {
	case w.Beyond == 0:
		return t + ", none beyond it"
	case w.BeyondWindow == window.BeyondMove:
		return t + fmt.Sprintf(", %d beyond it moved anyway (--beyond-window move)", w.Beyond)
	}
	return t + fmt.Sprintf(", %d beyond it left in the DLQ", w.Beyond)
}

// verifyText is verify's result in words.
func (inc *Incident) verifyText() string {
	v := inc.Verify
	if v == nil {
		if ev, ok := inc.Latest(incident.StepVerify); ok && ev.Verdict != "" {
			return "**" + inc.plain(plural.Spoken(ev.Verdict), maxName) + "**"
		}
		return ""
	}
	t := "**" + inc.plain(inc.verifyVerdict().Word(), maxName) + "**"
	switch {
	case len(v.Returned) > 0:
		t += fmt.Sprintf(" — %s came back to the DLQ", plural.Of(len(v.Returned), "moved message"))
	case v.Moved > 0:
		t += fmt.Sprintf(" — none of the %d moved messages came back", v.Moved)
	default:
		t += " —"
	}
	return t + fmt.Sprintf("; %d left in the DLQ", v.DLQVisible)
}
