package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/fleet"
	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/untrusted"
)

// readNotes reads the note of each DLQ mode selects (same index as
// l.DLQs; nil for none or not read), paced per account (note.Pacer). A
// note that cannot be read is a warning: the listing stands.
func readNotes(ctx context.Context, l *fleetListing, tags map[string]note.Tags, mode string) ([]*note.Note, []*lease.Holder) {
	dlqs := l.DLQs
	out, held := make([]*note.Note, len(dlqs)), make([]*lease.Holder, len(dlqs))
	if mode == "none" {
		return out, held
	}
	var qs []note.Queue
	var at []int
	for i, q := range dlqs {
		if mode == "all" || q.Total() > 0 {
			qs = append(qs, note.Queue{Account: q.Account, URL: q.URL, Client: tags[q.Account+"/"+q.Region]})
			at = append(at, i)
		}
	}
	// The same tag read shows a running redrive's lease (who, since when,
	// which alarms a --when-ok run waits on), so a colleague sees it.
	notes, leases, errs := note.ReadAllWith(ctx, note.NewPacer(0), qs, lease.Tag)
	failed, first := 0, error(nil)
	for j, i := range at {
		out[i] = notes[j]
		if h, ok := lease.ParseHolder(leases[j]); ok {
			held[i] = &h
		}
		if errs[j] != nil {
			failed++
			if first == nil {
				first = errs[j]
			}
		}
	}
	if failed > 0 {
		l.Warnings = append(l.Warnings, fmt.Sprintf("notes of %s unknown: %v", plural.Of(failed, "DLQ", "DLQs"), first))
	}
	return out, held
}

// runningRedrive is the redrive holding a DLQ now: its lease, nil when
// there is none or it expired. Every field came from the DLQ's tag.
func runningRedrive(h *lease.Holder, now time.Time) *lease.Holder {
	if h == nil || !h.Expires.After(now) {
		return nil
	}
	return h
}

// unreadableError is ls's and check --all's exit when accounts were not
// read: exit 4 (credentials or permission), after the rest was printed.
func unreadableError(u []fleet.Unreadable) error {
	return &exitError{Code: ExitAuth, Err: fmt.Errorf("%s not read (listed above): give the role in those accounts or remove them from --accounts", plural.Of(len(u), "account or region", "accounts or regions"))}
}

// unreadableLine is one unreadable account for a person.
func unreadableLine(u fleet.Unreadable) string {
	who := "account " + u.Account
	if u.Account == "" {
		who = "profile " + u.Profile
	}
	if u.Region != "" {
		who += " " + u.Region
	}
	what := "not read: "
	if u.Skipped {
		what = "skipped: "
	}
	return what + who + ": " + untrusted.Shorten(untrusted.Terminal(u.Reason), 300)
}
