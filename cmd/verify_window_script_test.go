package cmd

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/redrive/journal"
)

// journal-target DLQ TARGET INCIDENT MOVED writes the redrive event of a
// move of MOVED messages from DLQ to TARGET (a function's, topic's or
// bus's ARN) that began now and took a second, and a journal 'sent'
// entry per message whose destination id is a request id (what a
// function's Invoke answers): RID1…RIDn hold them for the script (logs-put
// expands them).
func cmdJournalTarget(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: journal-target DLQ TARGET INCIDENT MOVED")
	}
	moved, err := strconv.Atoi(args[3])
	ts.Check(err)
	ws, err := incident.Open(ts.MkAbs(args[2]))
	ts.Check(err)
	started := time.Now().UTC().Truncate(time.Second)
	f, err := ws.OpenAppend(incident.JournalFile)
	ts.Check(err)
	enc := json.NewEncoder(f)
	for i := range moved {
		rid := fmt.Sprintf("%08x-0000-4000-8000-%012d", rand.Uint32(), i+1)
		ts.Setenv("RID"+strconv.Itoa(i+1), rid)
		ts.Check(enc.Encode(journal.Entry{Time: started, Run: "r1", Op: journal.OpSent, DLQMessageID: fmt.Sprintf("dlq-%d", i+1), DestQueue: args[1], DestMessageID: rid}))
	}
	ts.Check(f.Close())
	ev := incident.Event{Step: "redrive", Queue: args[0]}
	ts.Check(ev.SetFigures(redrive.Figures{Moved: moved, DestQueue: args[1], DestURL: args[1],
		StartedAt: started, DurationSeconds: 1}))
	ts.Check(ws.Append(ev))
}
