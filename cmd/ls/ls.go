// Package ls is `mfdlq ls`: every DLQ of the accounts and regions, most
// urgent first (the listing is cmdutil.ListFleet's, which browse shows
// too), or with --incidents the incidents kept locally and in S3.
package ls

import (
	"context"
	"regexp"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/fleet"
	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/lease"
)

// LsOptions are the flags of mfdlq ls.
type LsOptions struct {
	deps           *cmdutil.Deps
	Regions        []string // the global --region, split on commas
	Prefix         string   // --prefix
	NonEmpty       bool     // --non-empty
	FailOnMessages bool     // --fail-on-messages
	Concurrency    int      // --concurrency
	Notes          string   // --notes non-empty|all|none
	Incidents      bool     // --incidents: list incidents, not DLQs (incidents.go)
	fleet          cmdutil.FleetFlags
}

// NewCmdLs is `mfdlq ls`; runF, when not nil, gets the parsed options
// instead of the run (tests).
func NewCmdLs(d *cmdutil.Deps, runF func(*LsOptions) error) *cobra.Command {
	opts := &LsOptions{deps: d}
	c := &cobra.Command{
		Use:   "ls [--region R[,R…]] [--prefix P] [--non-empty] [--fail-on-messages]",
		Short: "List every DLQ: depth, oldest message, when it expires, who reads the sources",
		Long:  docs.Long("ls") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  cmdutil.StepRunE(d, opts, opts.validate, nil, runF, runLs),
	}
	f := c.Flags()
	f.StringVar(&opts.Prefix, "prefix", "", "only queues whose names start with P")
	f.BoolVar(&opts.NonEmpty, "non-empty", false, "hide DLQs that hold no message")
	f.BoolVar(&opts.FailOnMessages, "fail-on-messages", false, "exit 3 when any DLQ holds a message (for cron and CI)")
	f.IntVar(&opts.Concurrency, "concurrency", 8, "queue attribute reads in flight at once (1-64)")
	f.StringVar(&opts.Notes, "notes", "non-empty", "read the notes (mfdlq note) of the non-empty DLQs, all of them, or none: 4 tag reads a second per account")
	f.BoolVar(&opts.Incidents, "incidents", false, "list the incidents under ./incidents, and in S3 with --incident s3://bucket/prefix/, instead of DLQs")
	opts.fleet.Bind(f)
	return c
}

func (o *LsOptions) validate() error {
	regions, err := cmdutil.ParseRegions(o.deps.Global.Region)
	if err != nil {
		return err
	}
	o.Regions = regions
	if err := o.fleet.Validate(); err != nil {
		return err
	}
	switch {
	case o.Notes != "non-empty" && o.Notes != "all" && o.Notes != "none":
		return cmdutil.UsageErrorf("--notes must be non-empty, all or none, got %q", o.Notes)
	case o.Concurrency < 1 || o.Concurrency > 64:
		return cmdutil.UsageErrorf("--concurrency must be between 1 and 64, got %d", o.Concurrency)
	case o.Prefix != "" && !regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`).MatchString(o.Prefix):
		return cmdutil.UsageErrorf("--prefix %q: a queue name prefix is 1-80 letters, digits, - or _", o.Prefix)
	}
	return nil
}

// lsResult is ls's JSON contract (docs/ls.md).
type lsResult struct {
	Summary  inventory.Summary `json:"summary"`
	DLQs     []lsDLQ           `json:"dlqs"`
	Warnings []string          `json:"warnings"`
	// Unreadable are the accounts (or regions of one) that could not be
	// read: the listing is of the others.
	Unreadable []fleet.Unreadable `json:"unreadable"`
	// Skipped are the organisation's accounts that are not ACTIVE
	// (suspended, closing, closed): named, not read, not a failure.
	Skipped []fleet.Unreadable `json:"skipped"`
}

// lsDLQ is one DLQ of the listing with the note on it (nil: none, or not
// read: --notes).
type lsDLQ struct {
	inventory.DLQ
	Note *note.Note `json:"note"`
	// Redrive is the redrive running on it now (its lease), nil when none.
	Redrive *lease.Holder `json:"redrive,omitempty"`
}

func runLs(ctx context.Context, o *LsOptions) error {
	d := o.deps
	if o.Incidents {
		return runLsIncidents(ctx, o)
	}
	l, err := d.ListFleet(ctx, &o.fleet, o.Regions, inventory.Options{Prefix: o.Prefix, Concurrency: o.Concurrency, Now: d.Now}, o.Notes)
	if err != nil {
		return err
	}
	res := lsResult{DLQs: []lsDLQ{}, Warnings: l.Warnings, Summary: inventory.Summarize(l.DLQs, d.Now())}
	res.Unreadable, res.Skipped = fleet.Split(l.Unreadable)
	for i := range l.DLQs {
		if o.NonEmpty && l.DLQs[i].Total() == 0 {
			continue
		}
		res.DLQs = append(res.DLQs, lsDLQ{DLQ: l.DLQs[i], Note: l.Notes[i], Redrive: l.Leases[i]})
	}
	for _, w := range res.Warnings {
		d.Warnf("%s", w)
	}
	if err := o.render(&res, len(o.Regions) > 1); err != nil {
		return err
	}
	if o.FailOnMessages && res.Summary.NonEmpty > 0 {
		return cmdutil.CheckFailedf("%s hold messages (--fail-on-messages)", plural.Of(res.Summary.NonEmpty, "DLQ", "DLQs"))
	}
	if first := firstNonEmpty(res.DLQs); first != nil {
		d.NextStep("mfdlq contain --queue %s", nextRef(o.fleet.Active(), &first.DLQ))
	}
	if len(res.Unreadable) > 0 {
		return cmdutil.UnreadableError(res.Unreadable)
	}
	return nil
}

// nextRef is how the next command names q: its ARN when the listing spans
// accounts (the name alone means the account in use).
func nextRef(fleetWide bool, q *inventory.DLQ) string {
	if fleetWide && q.ARN != "" {
		return q.ARN
	}
	return q.Queue
}

func firstNonEmpty(dlqs []lsDLQ) *lsDLQ {
	if len(dlqs) > 0 && dlqs[0].Total() > 0 {
		return &dlqs[0]
	}
	return nil
}
