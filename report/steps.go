package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

// stepTitles are the report's section titles, in runbook order.
var stepTitles = []struct{ step, title string }{
	{"contain", "1. contain — is the problem still alive?"},
	{"inspect", "2. inspect — what is in there?"},
	{"classify", "3. classify — poison, transient or data"},
	{"logs", "4. logs — the consumer's real exception"},
	{"fix", "Fix — what was changed before the redrive"},
	{"redrive", "5. redrive — the move back"},
	{"verify", "6. verify — did the fix hold?"},
	{"check", "Safeguards — mfdlq check"},
}

func (inc *Incident) writeSteps(b *strings.Builder) {
	for _, st := range stepTitles {
		fmt.Fprintf(b, "## %s\n\n", st.title)
		ev, ok := inc.Latest(st.step)
		if !ok {
			b.WriteString("not run.\n\n")
			continue
		}
		writeEvent(b, ev)
		switch st.step {
		case "contain":
			inc.writeContain(b)
		case "inspect":
			inc.writeInspect(b)
		case "classify":
			inc.writeClassify(b)
		case "logs":
			inc.writeLogs(b)
		case "redrive":
			inc.writeRedrive(b)
		case "verify":
			inc.writeVerify(b)
		case "check":
			inc.writeCheck(b)
		}
		b.WriteString("\n")
	}
}

// writeEvent shows what every step has: when, the command, the verdict, the
// inputs and figures (sorted, so golden files hold).
func writeEvent(b *strings.Builder, ev incident.Event) {
	fmt.Fprintf(b, "- ran: %s\n", ev.Time.UTC().Format(time.RFC3339))
	if len(ev.Command) > 0 {
		fmt.Fprintf(b, "- command: `%s`\n", ShellJoin(ev.Command))
	}
	if ev.Verdict != "" {
		fmt.Fprintf(b, "- verdict: **%s**\n", ev.Verdict)
	}
	if s := kvList(ev.Inputs); s != "" {
		fmt.Fprintf(b, "- inputs: %s\n", s)
	}
	if s := kvList(ev.Figures); s != "" {
		fmt.Fprintf(b, "- figures: %s\n", s)
	}
	if ev.Artifact != "" {
		fmt.Fprintf(b, "- artifact: `%s`\n", ev.Artifact)
	}
}
