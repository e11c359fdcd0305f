// Package browse is mfdlq's full-screen view: the fleet, a DLQ, a group of
// its messages and one message, with the redrive and export actions. It is
// only a view. Every read and every action goes through a Backend that cmd
// builds from the commands' own code, so what the view shows is what the
// packages computed, and what it does is what the command does: the same
// plan, the same question, the same incident events.
package browse

import (
	"context"
	"time"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/fleet"
	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Backend reads and acts for the view. Its methods are called off the UI
// loop (inside tea.Cmds) and must honour ctx: a read the operator left
// behind is cancelled, not waited for.
type Backend interface {
	// Fleet is what mfdlq ls computes: every DLQ, most urgent first.
	Fleet(ctx context.Context) (*Fleet, error)
	// Contain is contain's verdict on queue, recorded as the command does.
	Contain(ctx context.Context, queue string) (*contain.Result, error)
	// Classify is classify's groups for queue, recorded as the command
	// does.
	Classify(ctx context.Context, queue string) (*Classified, error)
	// Group returns the messages of group in the incident's sample — the
	// one classify grouped, from a harmless peek (VisibilityTimeout 5,
	// never a delete) — or, fresh, after a new peek (mfdlq inspect). A new
	// peek right after classify's would find its messages still hidden.
	Group(ctx context.Context, queue, group string, fresh bool) (*GroupMessages, error)
	// Logs is the consumer's log story of one message (logs by MessageId).
	Logs(ctx context.Context, queue, messageID string) (*logsearch.Result, error)
	// Redrive runs `mfdlq redrive --queue queue --group group flags…`
	// (flags: what the operator typed, --rate at least): its plan and
	// question reach the operator through io.Ask, its progress through
	// io.Status. Cancelling ctx stops it as Ctrl-C stops the command.
	Redrive(ctx context.Context, queue, group string, flags []string, io ActionIO) (string, error)
	// Export runs `mfdlq export --queue queue` into the incident
	// directory, reporting through io.
	Export(ctx context.Context, queue string, io ActionIO) (string, error)
}

// Fleet is the listing of mfdlq ls.
type Fleet struct {
	DLQs     []inventory.DLQ
	Summary  inventory.Summary
	Warnings []string
	At       time.Time // when it was read
	// Notes are the notes on the DLQs (mfdlq note), by DLQ ARN; a DLQ
	// without one is not in it. Anyone who may tag a queue wrote them.
	Notes map[string]*note.Note
	// Redrives are the redrives running on the DLQs now, by DLQ ARN: who,
	// since when, the alarms a --when-ok run waits on (lease.Holder's
	// Describe). From the DLQ's tags: untrusted.
	Redrives map[string]string
	// Accounts is a listing across accounts (--accounts, --profiles):
	// each DLQ is named with its account. Unreadable are the accounts
	// that could not be read.
	Accounts   bool
	Unreadable []fleet.Unreadable
}

// Classified is classify's result and the incident directory it went to.
type Classified struct {
	Result   *classify.Classification
	Incident string
	Lines    []string // what the command said on stderr (sample size, warnings)
}

// GroupMessages is a group's share of a harmless peek.
type GroupMessages struct {
	Messages []sqsjson.Message
	Peeked   int    // messages the sample holds, of every group
	Source   string // where they come from: "classify's sample", "a new peek"
}

// ActionIO is how an action running in the background talks to the view.
type ActionIO struct {
	// Ask shows the plan (the lines the command printed so far) and the
	// command's own question, and blocks until the operator answers; only
	// an explicit yes is true.
	Ask func(plan []string, question string) (bool, error)
	// Status replaces the status line (progress, the last line said).
	Status func(line string)
}
