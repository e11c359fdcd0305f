package cmd

import (
	"context"
	"fmt"
	"github.com/aws/aws-sdk-go-v2/aws"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/fleet"
	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// lsOptions are the flags of mfdlq ls.
type lsOptions struct {
	deps           *Deps
	Regions        []string // the global --region, split on commas
	Prefix         string   // --prefix
	NonEmpty       bool     // --non-empty
	FailOnMessages bool     // --fail-on-messages
	Concurrency    int      // --concurrency
	Notes          string   // --notes non-empty|all|none
	Incidents      bool     // --incidents: list incidents, not DLQs (cmd/ls_incidents.go)
	fleet          fleetFlags
}

func newLsCmd(d *Deps, runF func(*lsOptions) error) *cobra.Command {
	opts := &lsOptions{deps: d}
	c := &cobra.Command{
		Use:   "ls [--region R[,R…]] [--prefix P] [--non-empty] [--fail-on-messages]",
		Short: "List every DLQ: depth, oldest message, when it expires, who reads the sources",
		Long: `List every dead-letter queue of the account in the region(s): every queue
that some queue's RedrivePolicy names. For each: visible and in-flight
messages, the age of the oldest (CloudWatch's ApproximateAgeOfOldestMessage,
"no data" when CloudWatch has none), its retention, when the oldest message
expires, the source queues, the Lambda functions reading them, whether an
alarm watches its depth, and whether the retention pitfall applies (a
standard DLQ keeps messages no longer than a source does; a FIFO DLQ resets
the enqueue time on the move, so never there).

The most urgent come first: DLQs holding messages, soonest expiry first;
empty ones last (hidden with --non-empty). A one-line summary follows the
table (on stderr when the output is piped).

What it changes in AWS: nothing. It never receives a message. --region
takes a comma-separated list. --output json is a contract (docs/ls.md).

Examples:
  mfdlq ls
  mfdlq ls --region eu-west-1,us-east-1 --non-empty
  mfdlq ls --prefix payments --output json --fail-on-messages   # cron, CI

Exit 3 with --fail-on-messages when any DLQ holds a message.
` + exitStatusHelp,
		Args: cobra.NoArgs,
		RunE: stepRunE(d, opts, opts.validate, nil, runF, runLs),
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

var regionRE = sqsapi.RegionRE

// parseRegions splits the global --region of a fleet-wide read (ls,
// check --all) on commas; nil for the configuration's own region.
func parseRegions(r string) ([]string, error) {
	var out []string
	if r = strings.TrimSpace(r); r == "" {
		return nil, nil
	}
	for _, one := range strings.Split(r, ",") {
		one = strings.TrimSpace(one)
		if !regionRE.MatchString(one) {
			return nil, usageErrorf("--region %q: not a region name; use e.g. eu-west-1 or a comma-separated list", one)
		}
		out = append(out, one)
	}
	return out, nil
}

func (o *lsOptions) validate() error {
	regions, err := parseRegions(o.deps.Global.Region)
	if err != nil {
		return err
	}
	o.Regions = regions
	if err := o.fleet.Validate(); err != nil {
		return err
	}
	switch {
	case o.Notes != "non-empty" && o.Notes != "all" && o.Notes != "none":
		return usageErrorf("--notes must be non-empty, all or none, got %q", o.Notes)
	case o.Concurrency < 1 || o.Concurrency > 64:
		return usageErrorf("--concurrency must be between 1 and 64, got %d", o.Concurrency)
	case o.Prefix != "" && !regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`).MatchString(o.Prefix):
		return usageErrorf("--prefix %q: a queue name prefix is 1-80 letters, digits, - or _", o.Prefix)
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

func runLs(ctx context.Context, o *lsOptions) error {
	d := o.deps
	if o.Incidents {
		return runLsIncidents(ctx, o)
	}
	l, err := d.listFleet(ctx, &o.fleet, o.Regions, inventory.Options{Prefix: o.Prefix, Concurrency: o.Concurrency, Now: d.Now}, o.Notes)
	if err != nil {
		return err
	}
	res := lsResult{DLQs: []lsDLQ{}, Warnings: l.Warnings, Summary: inventory.Summarize(l.DLQs, d.Now())}
	res.Unreadable, res.Skipped = fleet.Split(l.Unreadable)
	for i := range l.DLQs {
		if o.NonEmpty && l.DLQs[i].Total() == 0 {
			continue
		}
		res.DLQs = append(res.DLQs, lsDLQ{DLQ: l.DLQs[i], Note: l.Notes[i], Redrive: runningRedrive(l.Leases[i], d.Now())})
	}
	for _, w := range res.Warnings {
		d.warnf("%s", w)
	}
	if err := o.render(&res, len(o.Regions) > 1); err != nil {
		return err
	}
	if o.FailOnMessages && res.Summary.NonEmpty > 0 {
		return checkFailedf("%s hold messages (--fail-on-messages)", plural.Of(res.Summary.NonEmpty, "DLQ", "DLQs"))
	}
	if first := firstNonEmpty(res.DLQs); first != nil {
		d.nextStep("mfdlq contain --queue %s", nextRef(o.fleet.Active(), &first.DLQ))
	}
	if len(res.Unreadable) > 0 {
		return unreadableError(res.Unreadable)
	}
	return nil
}

// fleetListing is what ls and browse show: every DLQ of the accounts and
// regions in urgency order, the note on each (same index; nil: none or
// not read), and what could not be read.
type fleetListing struct {
	// Configs are the configurations that read each account of a fleet
	// (--accounts, --profiles), by account id: a step on one of its DLQs
	// acts with them (browse).
	Configs    map[string]aws.Config
	DLQs       []inventory.DLQ
	Notes      []*note.Note
	Leases     []*lease.Holder // the running redrive of each DLQ whose note was read
	Warnings   []string
	Unreadable []fleet.Unreadable
}

// listFleet takes the inventory of every account and region the flags
// choose and reads the notes notes selects (non-empty, all, none).
func (d *Deps) listFleet(ctx context.Context, ff *fleetFlags, regions []string, io inventory.Options, notes string) (*fleetListing, error) {
	var (
		mu   sync.Mutex
		l    = &fleetListing{Warnings: []string{}, Configs: map[string]aws.Config{}}
		tags = map[string]note.Tags{} // account/region → its SQS client
	)
	unreadable, err := d.readFleet(ctx, ff, regions, func(ctx context.Context, s fleetScope) error {
		inv, err := inventory.Take(ctx, s.Clients, io)
		if err != nil {
			return fmt.Errorf("ls%s: %w", inRegion(s.Region), err)
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
			l.Warnings = append(l.Warnings, scopePrefix(ff.Active(), s)+w)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	l.Unreadable = unreadable
	inventory.Sort(l.DLQs)
	l.Notes, l.Leases = readNotes(ctx, l, tags, notes)
	return l, nil
}

// scopePrefix names the account and region a warning is about.
func scopePrefix(fleetWide bool, s fleetScope) string {
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

// nextRef is how the next command names q: its ARN when the listing spans
// accounts (the name alone means the account in use).
func nextRef(fleetWide bool, q *inventory.DLQ) string {
	if fleetWide && q.ARN != "" {
		return q.ARN
	}
	return q.Queue
}

func inRegion(region string) string {
	if region == "" {
		return ""
	}
	return " in " + region
}

func firstNonEmpty(dlqs []lsDLQ) *lsDLQ {
	if len(dlqs) > 0 && dlqs[0].Total() > 0 {
		return &dlqs[0]
	}
	return nil
}
