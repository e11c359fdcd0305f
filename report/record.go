package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

// writeCommands lists every command run, in order, the record command
// last: a reader can run them again.
func (inc *Incident) writeCommands(b *strings.Builder, o ReportOptions) {
	b.WriteString("\n## Commands run, in order\n\n")
	n := 0
	runs := commandsRun(inc.Events)
	shown, more := cappedAt(len(runs), 4*maxItems, "command", incident.EventsFile)
	for _, c := range runs[:shown] {
		n++
		fmt.Fprintf(b, "%d. %s — %s, %s\n", n, inc.code(c.line, maxCommand), inc.plain(strings.Join(c.steps, " + "), maxName), inc.at(c.time))
	}
	b.WriteString(more)
	if len(o.Command) > 0 {
		n++
		fmt.Fprintf(b, "%d. %s — record, %s\n", n, inc.code(ShellJoin(o.Command), maxCommand), inc.at(o.Now))
	}
	if n == 0 {
		b.WriteString("none recorded\n")
	}
	b.WriteString("\n")
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
