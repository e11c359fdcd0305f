package redrive

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Refusal is a guardrail that stops a redrive unless --force.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Before is what the incident said before this redrive, as the caller read
// it from the events.
type Before struct {
	Classify classify.Verdict // the latest classify's verdict; "" when none
	Fixed    bool             // a fix is recorded after that classify
	Alive    bool             // the latest contain says the problem is alive
}

// Group is what the guardrails need of one classification group.
type Group struct {
	ID        string
	Verdict   classify.Verdict
	Count     int
	FirstSent time.Time
}

// GuardInput is what the guardrails weigh: where the incident stands, the
// latest classification's groups, and the flags of the redrive.
type GuardInput struct {
	Before Before
	// Groups are classification.json's groups; nil when it is missing or
	// unreadable.
	Groups []Group
	// Fixed is the --fixed text about to be recorded ("" when none).
	Fixed string
	// Group is --group ("" when every group may move).
	Group string
}

// Guardrails returns why a redrive should not run now, or nil: messages of
// a poison group would move without a fix recorded after the latest
// classification, or the latest contain says the problem is still alive.
func Guardrails(in GuardInput) *Refusal {
	if in.Before.Classify != "" && !in.Before.Fixed && in.Fixed == "" {
		if r := poisonRefusal(in.Before.Classify, in.Groups, in.Group); r != nil {
			return r
		}
	}
	if in.Before.Alive {
		return &Refusal{Reason: "the latest contain says the problem is still alive: new failures would land on top of the moved messages; stop it first (mfdlq contain), or pass --force"}
	}
	return nil
}

// poisonRefusal refuses to move a poison group without a fix: the whole
// DLQ when it is all poison, the poison groups of a mixed one (naming the
// --group that moves the others), or the one poison group --group names.
func poisonRefusal(verdict classify.Verdict, groups []Group, only string) *Refusal {
	const fix = `fix the consumer and pass --fixed "what changed"`
	if groups == nil {
		switch verdict {
		case classify.VerdictPoison:
			return &Refusal{Reason: "the latest classify says poison and no fix is recorded: moving them back fails them again; " + fix + ", or --force"}
		case classify.VerdictMixed:
			return &Refusal{Reason: "the latest classify says mixed but its groups cannot be read: run mfdlq classify again, then move the groups that are not poison with --group, or --force"}
		}
		return nil
	}
	var poison, others []string
	poisonCount, total := 0, 0
	for _, g := range groups {
		total += g.Count
		switch {
		case only != "" && g.ID != only:
		case g.Verdict == classify.VerdictPoison:
			poison = append(poison, g.ID)
			poisonCount += g.Count
		default:
			others = append(others, fmt.Sprintf("--group %s (%s, %d)", g.ID, g.Verdict, g.Count))
		}
	}
	switch {
	case len(poison) == 0:
		return nil
	case only != "":
		return &Refusal{Reason: fmt.Sprintf("group %s is poison and no fix is recorded: moving it back fails it again; %s, or --force", only, fix)}
	case len(others) == 0:
		return &Refusal{Reason: "the latest classify says poison and no fix is recorded: moving them back fails them again; " + fix + ", or --force"}
	}
	return &Refusal{Reason: fmt.Sprintf("%d of %s are in poison %s %s and no fix is recorded: %s, or move the others alone with %s",
		poisonCount, plural.Of(total, "classified message"), plural.Noun(len(poison), "group"), strings.Join(poison, ", "), fix, strings.Join(others, " or "))}
}

// CanaryWait is how long the source's consumer needs to fail a message
// back to the DLQ: every receive hides it for the visibility timeout, and
// the DLQ gets it after maxReceiveCount receives. A minute when the
// destination has no redrive policy to the DLQ (nothing can come back).
func CanaryWait(dest *sqsapi.Queue, dlq *sqsapi.Queue) time.Duration {
	if !dest.DeadLettersTo(dlq) {
		return time.Minute
	}
	vis := dest.Visibility
	if vis <= 0 {
		vis = 30 * time.Second
	}
	return vis*time.Duration(max(dest.RedrivePolicy.MaxReceiveCount, 1)) + 10*time.Second
}

// Returned peeks at the DLQ (each message hidden for one second, never
// deleted) and counts the messages this journal sent somewhere: they came
// back, the consumer failed them again.
func Returned(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, st *journal.State) (int, error) {
	back, _, err := returnedBy(ctx, c, dlq, st)
	return back, err
}

// returnedBy is Returned with the returns counted by the queue they failed
// out of (DeadLetterQueueSourceArn, "" when the message has none).
func returnedBy(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, st *journal.State) (int, map[string]int, error) {
	if err := sqsapi.Refresh(ctx, c, dlq); err != nil {
		return 0, nil, fmt.Errorf("read %s: %w", dlq.Name, err)
	}
	n := int(min(dlq.Depth.Visible, 2000))
	if n == 0 {
		return 0, nil, nil
	}
	res, err := sqsapi.Peek(ctx, c, dlq, sqsapi.PeekOptions{Max: n, Visibility: 1, Wait: 1})
	if err != nil {
		return 0, nil, err
	}
	back, by := 0, map[string]int{}
	for _, m := range res.Messages {
		if mover.IsReturn(st, &m) {
			back++
			by[m.SourceARN()]++
		}
	}
	return back, by, nil
}

// NewRunID names one run in the journal.
func NewRunID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}
