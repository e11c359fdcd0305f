package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
)

// writeRecord is step 7 itself: the count, the cause, the change, what would
// have warned earlier, and every command run, in order.
func (inc *Incident) writeRecord(b *strings.Builder, o ReportOptions, res *ReportResult) {
	b.WriteString("## 7. record — what happened and what we learned\n\n")
	if n, from := inc.messageCount(); n >= 0 {
		fmt.Fprintf(b, "- messages: %d (%s)", n, from)
		if ev, ok := inc.Latest(incident.StepRedrive); ok {
			if moved, ok := number(ev.Figures["moved"]); ok {
				fmt.Fprintf(b, "; %d moved back by the redrive", int(moved))
			}
		}
		b.WriteString("\n")
	} else {
		b.WriteString("- messages: unknown (no step counted them)\n")
	}
	if v, ok := inc.Latest(incident.StepClassify); ok && v.Verdict != "" {
		fmt.Fprintf(b, "- verdict: **%s**", inc.plain(v.Verdict, maxName))
		if c := inc.Classification; c != nil {
			fmt.Fprintf(b, " (%s classified", plural.Of(c.Messages, "message"))
			var parts []string
			for _, g := range c.Groups {
				if g.Fingerprint != "" {
					parts = append(parts, inc.plain(firstNonEmpty(g.ID, string(g.Verdict)), maxName)+": "+inc.fingerprint(g.Fingerprint))
				}
			}
			if len(parts) > 0 {
				b.WriteString("; " + joinBounded(parts, "; ", maxLine/2))
			}
			b.WriteString(")")
		}
		b.WriteString("\n")
	}
	if ev, ok := inc.Latest(incident.StepRedrive); ok {
		rate := value(ev.Inputs["rate"])
		if r, ok := ev.Figures["rate"]; ok && ev.Inputs["rate"] == nil {
			rate = value(r)
		}
		fmt.Fprintf(b, "- redrive: at rate %s msg/s", inc.plain(rate, maxName))
		if d, ok := number(ev.Figures["duration_seconds"]); ok {
			fmt.Fprintf(b, " in %s", (time.Duration(d * float64(time.Second))).Round(time.Second/10))
		}
		if r, ok := number(ev.Figures["achieved_rate"]); ok {
			fmt.Fprintf(b, " (achieved %.1f msg/s)", r)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "- cause: %s\n", inc.todo(o.Cause, "cause", "what caused it", res))
	change := o.Change
	if change == "" {
		change = inc.RecordedChange()
	}
	fmt.Fprintf(b, "- change: %s\n", inc.todo(change, "change", "what was changed", res))
	warnings := inc.Warnings()
	if o.Warning != "" {
		warnings = append([]string{o.Warning}, warnings...)
	}
	if len(warnings) == 0 {
		fmt.Fprintf(b, "- what would have warned earlier: %s\n", inc.todo("", "warning", "what would have warned earlier", res))
	} else {
		b.WriteString("- what would have warned earlier:\n")
		n, more := capped(len(warnings), "warning")
		for _, w := range warnings[:n] {
			fmt.Fprintf(b, "  - %s\n", inc.plain(w, maxOperator))
		}
		b.WriteString(more)
	}
	b.WriteString("\n### Commands run, in order\n\n")
	n := 0
	runs := commandsRun(inc.Events)
	shown, more := len(runs), ""
	if shown > 4*maxItems {
		shown, more = 4*maxItems, fmt.Sprintf("… %s more in events.jsonl\n", plural.Of(len(runs)-4*maxItems, "command"))
	}
	for _, c := range runs[:shown] {
		n++
		fmt.Fprintf(b, "%d. %s — %s, %s\n", n, inc.code(c.line, maxCommand), inc.plain(strings.Join(c.steps, " + "), maxName), c.time.UTC().Format(time.RFC3339))
	}
	b.WriteString(more)
	if len(o.Command) > 0 {
		n++
		fmt.Fprintf(b, "%d. %s — record, %s\n", n, inc.code(ShellJoin(o.Command), maxCommand), o.Now.UTC().Format(time.RFC3339))
	}
	if n == 0 {
		b.WriteString("none recorded\n")
	}
}

// todo returns the operator's text s encoded, or a visible TODO naming the
// flag that fills it.
func (inc *Incident) todo(s, flag, what string, res *ReportResult) string {
	if strings.TrimSpace(s) != "" {
		return inc.plain(s, maxOperator)
	}
	res.TODO = append(res.TODO, flag)
	return fmt.Sprintf("**TODO** %s (`mfdlq record --%s TEXT`)", what, flag)
}

// ShellJoin quotes args the way a POSIX shell reads them back, so a
// command in the report can be pasted and run again.
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=@,+%", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

type commandRun struct {
	line  string
	steps []string
	time  time.Time
}

// commandsRun lists the commands in the order they ran. One command that
// appended several events in a row (redrive --fixed records the fix, then
// the redrive) is one command.
func commandsRun(events []incident.Event) []commandRun {
	var out []commandRun
	for _, ev := range events {
		if len(ev.Command) == 0 {
			continue
		}
		line := ShellJoin(ev.Command)
		if k := len(out) - 1; k >= 0 && out[k].line == line && !slices.Contains(out[k].steps, ev.Step) {
			out[k].steps = append(out[k].steps, ev.Step)
			continue
		}
		out = append(out, commandRun{line: line, steps: []string{ev.Step}, time: ev.Time})
	}
	return out
}
