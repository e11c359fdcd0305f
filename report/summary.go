package report

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/incident"
)

func (inc *Incident) writeSummary(b *strings.Builder) {
	b.WriteString("## Summary\n\n")
	if n, from := inc.messageCount(); n >= 0 {
		fmt.Fprintf(b, "- messages in the DLQ: %d (%s)\n", n, from)
	}
	for _, st := range stepTitles {
		step := st.step
		ev, ok := inc.Latest(step)
		switch {
		case !ok && st.optional:
		case !ok:
			fmt.Fprintf(b, "- %s: not run\n", step)
		case ev.Verdict != "":
			fmt.Fprintf(b, "- %s: **%s**\n", step, inc.plain(ev.Verdict, maxName))
		default:
			fmt.Fprintf(b, "- %s: done\n", step)
		}
	}
	inc.writeChangeSummary(b)
	n, more := capped(len(inc.Problems), "problem")
	for _, p := range inc.Problems[:n] {
		fmt.Fprintf(b, "- problem: %s\n", inc.plain(p, maxValue))
	}
	b.WriteString(more)
	b.WriteString("\n")
}

// messageCount is how many messages the DLQ held, from the step that
// measured the whole queue: contain, else inspect; classify's count is only
// its sample, unless nothing else counted.
func (inc *Incident) messageCount() (int, string) {
	if inc.Contain != nil {
		return int(inc.Contain.DLQ.Visible), "visible at contain"
	}
	if ev, ok := inc.Latest(incident.StepInspect); ok {
		if n, ok := number(ev.Figures["visible"]); ok {
			return int(n), "visible at inspect"
		}
	}
	if inc.Classification != nil && inc.Classification.Messages > 0 {
		return inc.Classification.Messages, "classified"
	}
	return -1, ""
}
