package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive"
)

// stepTitles are the report's section titles, in runbook order.
var stepTitles = []struct {
	step, title string
	optional    bool // left out of the report when not run
}{
	{incident.StepContain, "1. contain — is the problem still alive?", false},
	{incident.StepInspect, "2. inspect — what is in there?", false},
	{incident.StepChanges, changesTitle, true},
	{incident.StepClassify, "3. classify — poison, transient or data", false},
	{incident.StepLogs, "4. logs — the consumer's real exception", false},
	{incident.StepExport, "Archive — the messages kept outside SQS (mfdlq export)", true},
	{incident.StepFix, "Fix — what was changed before the redrive", false},
	{incident.StepRedrive, "5. redrive — the move back", false},
	{incident.StepVerify, "6. verify — did the fix hold?", false},
	{incident.StepCheck, "Safeguards — mfdlq check", false},
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
		switch st.step {
		case incident.StepContain:
			inc.writeContain(b)
		case incident.StepInspect:
			inc.writeInspect(b, ev)
		case incident.StepChanges:
			inc.writeChanges(b)
		case incident.StepClassify:
			inc.writeClassify(b)
		case incident.StepLogs:
			inc.writeLogs(b)
		case incident.StepExport:
			inc.writeExport(b, ev)
		case incident.StepFix:
			inc.writeFix(b, ev)
		case incident.StepRedrive:
			inc.writeRedrive(b, ev)
		case incident.StepVerify:
			inc.writeVerify(b)
		case incident.StepCheck:
			inc.writeCheck(b)
		}
		b.WriteString("\n")
	}
}

// writeEvent says in one sentence what every step has: when it ran, the
// command, its verdict and its artifact. The step's inputs and figures stay
// in events.jsonl; the sections below tell them in words.
func (inc *Incident) writeEvent(b *strings.Builder, ev incident.Event) {
	fmt.Fprintf(b, "Ran at %s", ev.Time.UTC().Format(time.RFC3339))
	if len(ev.Command) > 0 {
		fmt.Fprintf(b, " as %s", inc.code(ShellJoin(ev.Command), maxCommand))
	}
	if ev.Verdict != "" {
		fmt.Fprintf(b, "; verdict **%s**", inc.plain(ev.Verdict, maxName))
	}
	if ev.Artifact != "" {
		fmt.Fprintf(b, "; wrote %s", inc.code(ev.Artifact, maxName))
	}
	b.WriteString(".\n")
}

// writeFix is the change recorded before a redrive, and the attempt it
// starts.
func (inc *Incident) writeFix(b *strings.Builder, ev incident.Event) {
	fmt.Fprintf(b, "\nChanged: %s", inc.plain(orDash(redrive.FixOf(ev)), maxOperator))
	var f redrive.FixFigures
	if ev.DecodeFigures(&f) == nil && f.Attempt > 1 {
		fmt.Fprintf(b, " (attempt %d)", f.Attempt)
	}
	b.WriteString(".\n")
}
