package cmdutil

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/mfdlq/mfdlq/fleet"
	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// The fleet's listing that ls and browse show (every DLQ of the accounts
// and regions, in urgency order, with its note and running redrive), and
// what ls and check --all say of the accounts and regions they read.

// readNotes reads the note of each DLQ mode selects (same index as
// l.DLQs; nil for none or not read), paced per account (note.Pacer), and
// the redrive running on it at now (its lease; nil when there is none or
// it expired). A note that cannot be read is a warning: the listing
// stands.
func readNotes(ctx context.Context, l *FleetListing, tags map[string]note.Tags, mode string, now time.Time) ([]*note.Note, []*lease.Holder) {
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
		if h, ok := lease.ParseHolder(leases[j]); ok && h.Expires.After(now) {
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

// UnreadableError is ls's and check --all's exit when accounts were not
// read: exit 4 (credentials or permission), after the rest was printed.
func UnreadableError(u []fleet.Unreadable) error {
	return &ExitError{Code: ExitAuth, Err: fmt.Errorf("%s not read (listed above): give the role in those accounts or remove them from --accounts", plural.Of(len(u), "account or region", "accounts or regions"))}
}

// UnreadableLine is one unreadable account for a person.
func UnreadableLine(u fleet.Unreadable) string {
	what := "not read: "
	if u.Skipped {
		what = "skipped: "
	}
	return what + u.Label() + ": " + untrusted.Shorten(untrusted.Terminal(u.Reason), 300)
}

// FleetListing is what ls and browse show: every DLQ of the accounts and
// regions in urgency order, the note on each (same index; nil: none or
// not read), and what could not be read.
type FleetListing struct {
	// Configs are the configurations that read each account of a fleet
	// (--accounts, --profiles), by account id: a step on one of its DLQs
	// acts with them (browse).
	Configs map[string]aws.Config
	DLQs    []inventory.DLQ
	Notes   []*note.Note
	// Leases are the running redrive of each DLQ whose note was read (its
	// lease, unexpired; nil for none): every field came from the DLQ's tag.
	Leases     []*lease.Holder
	Warnings   []string
	Unreadable []fleet.Unreadable
}

// ListFleet takes the inventory of every account and region the flags
// choose and reads the notes notes selects (non-empty, all, none).
func (d *Deps) ListFleet(ctx context.Context, ff *FleetFlags, regions []string, io inventory.Options, notes string) (*FleetListing, error) {
	var (
		mu   sync.Mutex
		l    = &FleetListing{Warnings: []string{}, Configs: map[string]aws.Config{}}
		tags = map[string]note.Tags{} // account/region → its SQS client
	)
	unreadable, err := d.ReadFleet(ctx, ff, regions, func(ctx context.Context, s FleetScope) error {
		inv, err := inventory.Take(ctx, s.Clients, io)
		if err != nil {
			return fmt.Errorf("ls%s: %w", InRegion(s.Region), err)
		}
		mu.Lock()
		defer mu.Unlock()
		l.DLQs = append(l.DLQs, inv.DLQs...)
		if ff.Active() && s.Account != "" {
			l.Configs[s.Account] = s.Config
		}
		for _, q := range inv.DLQs {
			tags[q.Account+"/"+q.Region] = s.SQS
		}
		for _, w := range inv.Warnings {
			l.Warnings = append(l.Warnings, ScopePrefix(ff.Active(), s)+w)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	l.Unreadable = unreadable
	inventory.Sort(l.DLQs)
	l.Notes, l.Leases = readNotes(ctx, l, tags, notes, d.Now())
	return l, nil
}

// ScopePrefix names the account and region a warning is about.
func ScopePrefix(fleetWide bool, s FleetScope) string {
	switch {
	case fleetWide && s.Region != "":
		return "account " + s.Account + " " + s.Region + ": "
	case fleetWide:
		return "account " + s.Account + ": "
	case s.Region != "":
		return s.Region + ": "
	}
	return ""
}

// ParseRegions splits the global --region of a fleet-wide read (ls,
// check --all) on commas; nil for the configuration's own region.
func ParseRegions(r string) ([]string, error) {
	var out []string
	if r = strings.TrimSpace(r); r == "" {
		return nil, nil
	}
	for _, one := range strings.Split(r, ",") {
		one = strings.TrimSpace(one)
		if !sqsapi.RegionRE.MatchString(one) {
			return nil, UsageErrorf("--region %q: not a region name; use e.g. eu-west-1 or a comma-separated list", one)
		}
		out = append(out, one)
	}
	return out, nil
}

// InRegion is " in REGION", or "" for the configuration's own region.
func InRegion(region string) string {
	if region == "" {
		return ""
	}
	return " in " + region
}
