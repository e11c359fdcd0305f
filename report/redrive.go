package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func (inc *Incident) writeRedrive(b *strings.Builder, ev incident.Event) {
	inc.writeMove(b, ev)
	inc.writeProvenance(b, ev)
	f := redrive.FiguresOf(ev)
	if f.Transform != nil {
		inc.writeTransform(b, *f.Transform, f.Undo)
	}
	if f.HeldBack > 0 {
		fmt.Fprintf(b, "\n%s held back in the DLQ: an earlier message of their FIFO group failed and stayed there, and sent they would have reached the consumer out of order.\n",
			plural.Of(f.HeldBack, "message"))
	}
	if f.Dedupe != nil {
		inc.writeDedupe(b, *f.Dedupe)
	}
	switch {
	case inc.Ledger != nil:
		inc.writeJournal(b, "Journal (compacted: completed messages kept as counts)", "messages", inc.ledgerCounts())
	case len(inc.Journal) == 0:
		b.WriteString("\nredrive-journal.jsonl is missing or empty.\n")
	default:
		inc.writeJournal(b, "Journal", "distinct messages", inc.journalCounts())
	}
}

// journalTally is what the redrive section tells of the journal, read
// from its entries or from a compacted journal's counts.
type journalTally struct {
	entries, runs int
	first, last   time.Time
	dests         map[string]bool
	ops           map[string]int         // per operation
	byAttempt     map[int]map[string]int // per attempt, per operation
	lastAttempt   int
	pending       int // sent and not yet deleted from the DLQ
}

// journalCounts tallies the journal's entries: each operation counts the
// distinct messages it names, overall and per attempt.
func (inc *Incident) journalCounts() journalTally {
	t := journalTally{entries: len(inc.Journal), first: inc.Journal[0].Time, last: inc.Journal[len(inc.Journal)-1].Time,
		dests: map[string]bool{}, ops: map[string]int{}, byAttempt: map[int]map[string]int{}, lastAttempt: 1}
	type named struct {
		attempt int // 0: any attempt
		op, id  string
	}
	seen, runs := map[named]bool{}, map[string]bool{}
	for _, e := range inc.Journal {
		a := max(e.Attempt, 1)
		t.lastAttempt = max(t.lastAttempt, a)
		if k := (named{0, e.Op, e.DLQMessageID}); !seen[k] {
			seen[k] = true
			t.ops[e.Op]++
		}
		if k := (named{a, e.Op, e.DLQMessageID}); !seen[k] {
			seen[k] = true
			if t.byAttempt[a] == nil {
				t.byAttempt[a] = map[string]int{}
			}
			t.byAttempt[a][e.Op]++
		}
		runs[e.Run] = true
		if e.DestQueue != "" {
			t.dests[sqsapi.NameOf(e.DestQueue)] = true
		}
	}
	t.runs = len(runs)
	for k := range seen {
		if k.attempt == 0 && k.op == journal.OpSent && !seen[named{0, journal.OpDeleted, k.id}] {
			t.pending++
		}
	}
	return t
}

// ledgerCounts tallies a compacted journal: its counts are entries per
// operation (a message skipped by two runs counts twice), the open entries
// are the messages sent and not yet deleted.
func (inc *Incident) ledgerCounts() journalTally {
	l := inc.Ledger
	t := journalTally{entries: l.Entries(), runs: len(l.Runs()), pending: len(l.Open()),
		dests: map[string]bool{}, ops: map[string]int{}, byAttempt: map[int]map[string]int{}, lastAttempt: 1}
	t.first, t.last = l.Span()
	for _, c := range l.Counts() {
		if c.Dest != "" {
			t.dests[sqsapi.NameOf(c.Dest)] = true
		}
		t.ops[c.Op] += c.N
		if t.byAttempt[c.Attempt] == nil {
			t.byAttempt[c.Attempt] = map[string]int{}
		}
		t.byAttempt[c.Attempt][c.Op] += c.N
		t.lastAttempt = max(t.lastAttempt, c.Attempt)
	}
	return t
}

// writeJournal tells the journal: its span, the count of each operation,
// the attempts when there was more than one (each fix recorded after a
// redrive started a new one, and the journal marks every entry with its
// attempt), and what a rerun would finish.
func (inc *Incident) writeJournal(b *strings.Builder, heading, counted string, t journalTally) {
	fmt.Fprintf(b, "\n%s: %s over %s, %s → %s, destination %s.\n\n", heading,
		plural.Of(t.entries, "entry"), plural.Of(t.runs, "run"), inc.at(t.first), inc.at(t.last), inc.plain(orDash(strings.Join(slices.Sorted(maps.Keys(t.dests)), ", ")), maxValue))
	fmt.Fprintf(b, "| operation | %s |\n|---|---|\n", counted)
	keys := slices.Sorted(maps.Keys(t.ops))
	n, more := capped(len(keys), "operation")
	for _, op := range keys[:n] {
		fmt.Fprintf(b, "| %s | %d |\n", inc.plain(op, maxName), t.ops[op])
	}
	b.WriteString(more)
	if fixes, na := redrive.Fixes(inc.Events); max(t.lastAttempt, na) >= 2 {
		b.WriteString("\n| attempt | fix | sent | deleted | skipped | filter errors | failed |\n|---|---|---|---|---|---|---|\n")
		// A journal mfdlq did not write could claim any attempt number:
		// the table stops at maxItems rows.
		shown, more := capped(max(t.lastAttempt, na), "attempt")
		for a := 1; a <= shown; a++ {
			o := t.byAttempt[a]
			fmt.Fprintf(b, "| %d | %s | %d | %d | %d | %d | %d |\n", a, inc.plain(orDash(strings.Join(fixes[a], "; ")), maxOperator),
				o[journal.OpSent], o[journal.OpDeleted], o[journal.OpSkipped], o[journal.OpFilterError], o[journal.OpFailed])
		}
		b.WriteString(more)
	}
	if t.pending > 0 {
		fmt.Fprintf(b, "\n%s sent but not yet deleted from the DLQ: running the same redrive again deletes them without sending again.\n", plural.Of(t.pending, "message"))
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
