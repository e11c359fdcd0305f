package cmd

import (
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive"
)

// journal-target DLQ TARGET INCIDENT MOVED writes the redrive event of a
// move of MOVED messages from DLQ to TARGET (a function's, topic's or
// bus's ARN) that began now and took a second: what verify reads of a
// redrive to a target whose sends the test does not need.
func cmdJournalTarget(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: journal-target DLQ TARGET INCIDENT MOVED")
	}
	moved, err := strconv.Atoi(args[3])
	ts.Check(err)
	ws, err := incident.Open(ts.MkAbs(args[2]))
	ts.Check(err)
	ev := incident.Event{Step: "redrive", Queue: args[0]}
	ts.Check(ev.SetFigures(redrive.Figures{Moved: moved, DestQueue: args[1], DestURL: args[1],
		StartedAt: time.Now().UTC().Truncate(time.Second), DurationSeconds: 1}))
	ts.Check(ws.Append(ev))
}
