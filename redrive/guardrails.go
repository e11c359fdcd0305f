package redrive

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/plural"
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
// An unknown group — classify had no proof, only a timing clue — is asked
// the same: a recorded fix (--fixed), or --group of the proven groups. It
// is not asked the fix-deployed check (classify.Verdict.NeedsFix): a
// dependency that recovered is no deploy.
func poisonRefusal(verdict classify.Verdict, groups []Group, only string) *Refusal {
	const fix = `fix the consumer and pass --fixed "what changed"`
	const prove = `prove what failed first (mfdlq logs, or classify again with --expect FIELD=VALUE or --baseline FILE), or pass --fixed "what changed"`
	if groups == nil {
		switch verdict {
		case classify.VerdictPoison:
			return &Refusal{Reason: "the latest classify says poison and no fix is recorded: moving them back fails them again; " + fix + ", or --force"}
		case classify.VerdictMixed:
			return &Refusal{Reason: "the latest classify says mixed but its groups cannot be read: run mfdlq classify again, then move the groups that are not poison with --group, or --force"}
		case classify.VerdictUnknown:
			return &Refusal{Reason: "the latest classify says unknown (no proof of what failed, only a timing clue) and no fix is recorded: " + prove + ", or --force"}
		}
		return nil
	}
	var gated, others []string
	gatedCount, total, poison := 0, 0, 0
	for _, g := range groups {
		total += g.Count
		switch {
		case only != "" && g.ID != only:
		case g.Verdict == classify.VerdictPoison || g.Verdict == classify.VerdictUnknown:
			gated = append(gated, g.ID)
			gatedCount += g.Count
			if g.Verdict == classify.VerdictPoison {
				poison++
			}
		default:
			others = append(others, fmt.Sprintf("--group %s (%s, %d)", g.ID, g.Verdict, g.Count))
		}
	}
	kind, todo := "poison", fix
	switch {
	case poison == 0:
		kind, todo = "unknown", prove
	case poison < len(gated):
		kind, todo = "poison or unknown", fix+" (the unknown ones: "+prove+")"
	}
	switch {
	case len(gated) == 0:
		return nil
	case only != "" && kind == "unknown":
		return &Refusal{Reason: fmt.Sprintf("group %s is unknown (no proof of what failed, only a timing clue) and no fix is recorded: %s, or --force", only, prove)}
	case only != "":
		return &Refusal{Reason: fmt.Sprintf("group %s is poison and no fix is recorded: moving it back fails it again; %s, or --force", only, fix)}
	case len(others) == 0 && kind == "unknown":
		return &Refusal{Reason: "the latest classify says unknown (no proof of what failed, only a timing clue) and no fix is recorded: " + prove + ", or --force"}
	case len(others) == 0 && kind == "poison":
		return &Refusal{Reason: "the latest classify says poison and no fix is recorded: moving them back fails them again; " + fix + ", or --force"}
	case len(others) == 0:
		return &Refusal{Reason: fmt.Sprintf("every group is poison or unknown (%s) and no fix is recorded: %s, or --force", strings.Join(gated, ", "), todo)}
	}
	return &Refusal{Reason: fmt.Sprintf("%d of %s are in %s %s %s and no fix is recorded: %s, or move the others alone with %s",
		gatedCount, plural.Of(total, "classified message"), kind, plural.Noun(len(gated), "group"), strings.Join(gated, ", "), todo, strings.Join(others, " or "))}
}
