package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
)

// writeProvenance says who ran the move (the STS caller's ARN the event
// recorded), what each redriven message carries to tell it from a fresh
// one, and, when the journal holds several runs, who ran each: "who
// retried what". An incident written before provenance was recorded says
// nothing.
func (inc *Incident) writeProvenance(b *strings.Builder, ev incident.Event) {
	f := redrive.FiguresOf(ev).Provenance
	if f == nil {
		return
	}
	who := "an operator STS did not name"
	if f.Operator != "" {
		who = inc.code(f.Operator, maxName)
	}
	fmt.Fprintf(b, "\nRun by %s.", who)
	switch {
	case f.Attribute == "":
		fmt.Fprintf(b, " The messages carry no provenance attribute: %s.", inc.plain(strings.TrimPrefix(f.Off, "off: "), maxValue))
	default:
		fmt.Fprintf(b, " Each message moved carries the attribute %s (the incident, the run, its DLQ MessageId and the attempt), telling it from a fresh one: %s stamped", inc.code(f.Attribute, maxName), plural.Of(f.Stamped, "message"))
		if n := f.Without(); n > 0 {
			fmt.Fprintf(b, ", %s without it (%s)", plural.Of(n, "message"), f.WithoutText())
		}
		b.WriteString(".")
	}
	b.WriteString("\n")
	inc.writeOperators(b)
}

// writeOperators lists the journal's runs and who ran each, when there was
// more than one run.
func (inc *Incident) writeOperators(b *strings.Builder) {
	if len(inc.Operators) < 2 {
		return
	}
	runs := make([]string, 0, len(inc.Operators))
	for r := range inc.Operators {
		runs = append(runs, r)
	}
	sort.Strings(runs)
	n, more := capped(len(runs), "run")
	b.WriteString("\n| run | operator |\n|---|---|\n")
	for _, r := range runs[:n] {
		fmt.Fprintf(b, "| %s | %s |\n", inc.codeCell(r, maxName), inc.codeCell(inc.Operators[r], maxName))
	}
	b.WriteString(more)
}
