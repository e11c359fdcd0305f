package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
)

// writeProvenance says what each redriven message carries to tell it
// from a fresh one, and, when several identities ran the journal's runs,
// who ran each: "who retried what". An incident written before provenance was recorded says
// nothing.
func (inc *Incident) writeProvenance(b *strings.Builder, ev incident.Event) {
	f := redrive.FiguresOf(ev).Provenance
	if f == nil {
		return
	}
	// Who ran it is the appendix's operator row, said once there.
	b.WriteString("\n")
	if f.Attribute == "" {
		fmt.Fprintf(b, "The messages carry no provenance attribute: %s.", inc.plain(strings.TrimPrefix(f.Off, "off: "), maxValue))
	} else {
		fmt.Fprintf(b, "Each message moved carries the attribute %s (the incident, the run, its DLQ MessageId and the attempt), telling it from a fresh one: %s stamped", inc.code(f.Attribute, maxName), plural.Of(f.Stamped, "message"))
		if n := f.Without(); n > 0 {
			fmt.Fprintf(b, ", %s without it (%s)", plural.Of(n, "message"), f.WithoutText())
		}
		b.WriteString(".")
	}
	b.WriteString("\n")
	inc.writeOperators(b)
}

// writeOperators lists the journal's runs and who ran each, when more
// than one identity ran them.
func (inc *Incident) writeOperators(b *strings.Builder) {
	if len(inc.Operators) < 2 {
		return
	}
	runs := slices.Sorted(maps.Keys(inc.Operators))
	distinct := map[string]bool{}
	for _, op := range inc.Operators {
		distinct[op] = true
	}
	if len(distinct) == 1 {
		// One identity ran them all: the appendix's operator row says who.
		fmt.Fprintf(b, "\nThe journal holds %s, all by the operator.\n", plural.Of(len(runs), "run"))
		return
	}
	n, more := capped(len(runs), "run")
	b.WriteString("\n| run | operator |\n|---|---|\n")
	for _, r := range runs[:n] {
		fmt.Fprintf(b, "| %s | %s |\n", inc.codeCell(r, maxName), inc.plain(callerWords(inc.Operators[r]), maxName))
	}
	b.WriteString(more)
}
