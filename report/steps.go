package report

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/incident"
)

// stepTitles are the report's sections, in runbook order, each with its
// writer.
var stepTitles = []struct {
	step, title string
	optional    bool // left out of the report when not run
	write       func(*Incident, *strings.Builder, incident.Event)
}{
	{incident.StepContain, "1. contain — is the problem still alive?", false, (*Incident).writeContain},
	{incident.StepInspect, "2. inspect — what is in there?", false, (*Incident).writeInspect},
	{incident.StepChanges, changesTitle, true, (*Incident).writeChanges},
	{incident.StepClassify, "3. classify — poison, transient or data", false, (*Incident).writeClassify},
	{incident.StepLogs, "4. logs — the consumer's real exception", false, (*Incident).writeLogs},
	{incident.StepExport, "Archive — the messages kept outside SQS (mfdlq export)", true, (*Incident).writeExport},
	{incident.StepRedrive, "5. redrive — the move back", false, (*Incident).writeRedrive},
	{incident.StepVerify, "6. verify — did the fix hold?", false, (*Incident).writeVerify},
	{incident.StepCheck, "Safeguards — mfdlq check", false, (*Incident).writeCheck},
}

func (inc *Incident) writeSteps(b *strings.Builder) {
	for _, st := range stepTitles {
		ev, ok := inc.Latest(st.step)
		if !ok && st.optional {
			continue
		}
		fmt.Fprintf(b, "## %s\n\n", st.title)
		if !ok {
			b.WriteString("not run.\n\n")
			continue
		}
		inc.writeEvent(b, ev)
		inc.writeExpiry(b, ev)
		st.write(inc, b, ev)
		b.WriteString("\n")
	}
}

// writeEvent says in one sentence what every step has: when it ran and
// its artifact. The verdict is the timeline's and the command is listed
// once, among the commands run; the step's inputs and figures stay in
// events.jsonl and the sections below tell them in words.
func (inc *Incident) writeEvent(b *strings.Builder, ev incident.Event) {
	fmt.Fprintf(b, "Ran at %s", inc.at(ev.Time))
	if ev.Artifact != "" {
		fmt.Fprintf(b, "; wrote %s", inc.code(ev.Artifact, maxName))
	}
	b.WriteString(".\n")
}
