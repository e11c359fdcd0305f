package report

import (
	"github.com/mfdlq/mfdlq/redrive/journal"
	"maps"
	"slices"

	"fmt"
	"github.com/mfdlq/mfdlq/sqsapi"
	"strings"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
)

func (inc *Incident) writeRedrive(b *strings.Builder, ev incident.Event) {
	inc.writeMove(b, ev)
	inc.writeProvenance(b, ev)
	if f := redrive.FiguresOf(ev); f.Transform != nil {
		inc.writeTransform(b, *f.Transform, f.Undo)
	}
	if f := redrive.FiguresOf(ev); f.HeldBack > 0 {
		fmt.Fprintf(b, "\n%s held back in the DLQ: an earlier message of their FIFO group failed and stayed there, and sent they would have reached the consumer out of order.\n",
			plural.Of(f.HeldBack, "message"))
	}
	if f := redrive.FiguresOf(ev); f.Dedupe != nil {
		inc.writeDedupe(b, *f.Dedupe)
	}
	if inc.Ledger != nil {
		inc.writeCompactedRedrive(b)
		return
	}
	if len(inc.Journal) == 0 {
		b.WriteString("\nredrive-journal.jsonl is missing or empty.\n")
		return
	}
	ops := map[string]map[string]bool{}
	runs := map[string]bool{}
	dests := map[string]bool{}
	for _, e := range inc.Journal {
		if ops[e.Op] == nil {
			ops[e.Op] = map[string]bool{}
		}
		ops[e.Op][e.DLQMessageID] = true
		runs[e.Run] = true
		if e.DestQueue != "" {
			dests[sqsapi.NameOf(e.DestQueue)] = true
		}
	}
	first, last := inc.Journal[0].Time, inc.Journal[len(inc.Journal)-1].Time
	fmt.Fprintf(b, "\nJournal: %s over %s, %s → %s, destination %s.\n\n",
		plural.Of(len(inc.Journal), "entry"), plural.Of(len(runs), "run"), inc.at(first), inc.at(last), inc.plain(orDash(strings.Join(slices.Sorted(maps.Keys(dests)), ", ")), maxValue))
	b.WriteString("| operation | distinct messages |\n|---|---|\n")
	keys := slices.Sorted(maps.Keys(ops))
	n, more := capped(len(keys), "operation")
	for _, op := range keys[:n] {
		fmt.Fprintf(b, "| %s | %d |\n", inc.plain(op, maxName), len(ops[op]))
	}
	b.WriteString(more)
	inc.writeAttempts(b)
	if sent, deleted := ops[journal.OpSent], ops[journal.OpDeleted]; len(sent) > 0 {
		pending := 0
		for id := range sent {
			if !deleted[id] {
				pending++
			}
		}
		if pending > 0 {
			fmt.Fprintf(b, "\n%s sent but not yet deleted from the DLQ: running the same redrive again deletes them without sending again.\n", plural.Of(pending, "message"))
		}
	}
}

// writeMove tells the latest move's details in a sentence: what was
// selected, the canary, --keep, and how it stopped. How many moved where
// and how fast is the first screen's.
func (inc *Incident) writeMove(b *strings.Builder, ev incident.Event) {
	in := redrive.InputsOf(ev)
	var sel []string
	if in.FromFile != "" {
		sel = append(sel, "from the export "+inc.code(in.FromFile, maxValue))
	}
	for _, p := range in.Selection.Parts() {
		vals := make([]any, len(p.Values))
		for i, v := range p.Values {
			if p.Code {
				vals[i] = inc.code(v, maxValue)
			} else {
				vals[i] = inc.plain(orDash(v), maxName)
			}
		}
		sel = append(sel, fmt.Sprintf(p.Words, vals...))
	}
	var parts []string
	if len(sel) > 0 {
		parts = append(parts, "selected: "+strings.Join(sel, ", "))
	}
	switch {
	case in.Native:
		parts = append(parts, "moved by SQS's own move task")
	case in.Canary > 0:
		parts = append(parts, fmt.Sprintf("a canary of %s went first", plural.Of(in.Canary, "message")))
	}
	if in.Keep {
		parts = append(parts, "copied with --keep: the originals stay in the DLQ")
	}
	if len(parts) > 0 {
		s := strings.Join(parts, "; ")
		b.WriteString("\n" + strings.ToUpper(s[:1]) + s[1:] + ".\n")
	}
}

// writeAttempts numbers the attempts when there was more than one: each
// fix recorded after a redrive started a new one, and the journal marks
// every entry with its attempt.
func (inc *Incident) writeAttempts(b *strings.Builder) {
	fixes, n := redrive.Fixes(inc.Events)
	ops := map[int]map[string]map[string]bool{}
	last := 1
	for _, e := range inc.Journal {
		a := max(e.Attempt, 1)
		last = max(last, a)
		if ops[a] == nil {
			ops[a] = map[string]map[string]bool{}
		}
		if ops[a][e.Op] == nil {
			ops[a][e.Op] = map[string]bool{}
		}
		ops[a][e.Op][e.DLQMessageID] = true
	}
	if max(last, n) < 2 {
		return
	}
	b.WriteString("\n| attempt | fix | sent | deleted | skipped | filter errors | failed |\n|---|---|---|---|---|---|---|\n")
	// A journal mfdlq did not write could claim any attempt number: the
	// table stops at maxItems rows.
	shown, more := capped(max(last, n), "attempt")
	for a := 1; a <= shown; a++ {
		o := ops[a]
		fmt.Fprintf(b, "| %d | %s | %d | %d | %d | %d | %d |\n", a, inc.plain(orDash(strings.Join(fixes[a], "; ")), maxOperator),
			len(o[journal.OpSent]), len(o[journal.OpDeleted]), len(o[journal.OpSkipped]), len(o[journal.OpFilterError]), len(o[journal.OpFailed]))
	}
	b.WriteString(more)
}

// writeCompactedRedrive is writeRedrive for a compacted journal: its
// counts are entries per operation (a message skipped by two runs counts
// twice), the open entries are the messages sent and not yet deleted.
func (inc *Incident) writeCompactedRedrive(b *strings.Builder) {
	l := inc.Ledger
	first, last := l.Span()
	dests := map[string]bool{}
	ops := map[string]int{}
	byAttempt := map[int]map[string]int{}
	lastAttempt := 1
	for _, c := range l.Counts() {
		if c.Dest != "" {
			dests[sqsapi.NameOf(c.Dest)] = true
		}
		ops[c.Op] += c.N
		if byAttempt[c.Attempt] == nil {
			byAttempt[c.Attempt] = map[string]int{}
		}
		byAttempt[c.Attempt][c.Op] += c.N
		lastAttempt = max(lastAttempt, c.Attempt)
	}
	fmt.Fprintf(b, "\nJournal (compacted: completed messages kept as counts): %s over %s, %s → %s, destination %s.\n\n",
		plural.Of(l.Entries(), "entry"), plural.Of(len(l.Runs()), "run"), inc.at(first), inc.at(last), inc.plain(orDash(strings.Join(slices.Sorted(maps.Keys(dests)), ", ")), maxValue))
	b.WriteString("| operation | messages |\n|---|---|\n")
	keys := slices.Sorted(maps.Keys(ops))
	n, more := capped(len(keys), "operation")
	for _, op := range keys[:n] {
		fmt.Fprintf(b, "| %s | %d |\n", inc.plain(op, maxName), ops[op])
	}
	b.WriteString(more)
	fixes, na := redrive.Fixes(inc.Events)
	if max(lastAttempt, na) >= 2 {
		b.WriteString("\n| attempt | fix | sent | deleted | skipped | filter errors | failed |\n|---|---|---|---|---|---|---|\n")
		shown, more := capped(max(lastAttempt, na), "attempt")
		for a := 1; a <= shown; a++ {
			o := byAttempt[a]
			fmt.Fprintf(b, "| %d | %s | %d | %d | %d | %d | %d |\n", a, inc.plain(orDash(strings.Join(fixes[a], "; ")), maxOperator),
				o[journal.OpSent], o[journal.OpDeleted], o[journal.OpSkipped], o[journal.OpFilterError], o[journal.OpFailed])
		}
		b.WriteString(more)
	}
	if pending := len(l.Open()); pending > 0 {
		fmt.Fprintf(b, "\n%s sent but not yet deleted from the DLQ: running the same redrive again deletes them without sending again.\n", plural.Of(pending, "message"))
	}
}
