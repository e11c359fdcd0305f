package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
)

func (inc *Incident) writeRedrive(b *strings.Builder) {
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
			dests[e.DestQueue] = true
		}
	}
	first, last := inc.Journal[0].Time, inc.Journal[len(inc.Journal)-1].Time
	fmt.Fprintf(b, "\nJournal: %s over %s, %s → %s, destination %s.\n\n",
		plural.Of(len(inc.Journal), "entry"), plural.Of(len(runs), "run"), first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339), orDash(strings.Join(sortedKeys(dests), ", ")))
	b.WriteString("| operation | distinct messages |\n|---|---|\n")
	for _, op := range sortedKeys(ops) {
		fmt.Fprintf(b, "| %s | %d |\n", op, len(ops[op]))
	}
	if sent, deleted := ops[redrive.OpSent], ops[redrive.OpDeleted]; len(sent) > 0 {
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
