package check

import (
	"context"
	"fmt"
	"regexp"
	"sync"

	checkstep "github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/fleet"
	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/plural"
)

// validateAll checks the flags of check --all.
func (o *CheckOptions) validateAll() error {
	switch {
	case !o.All:
		return cmdutil.UsageErrorf("--accounts, --profiles and --prefix are used with --all")
	case o.Topic != "" || o.Yes || o.DryRun:
		return cmdutil.UsageErrorf("--all only reads: --topic, --yes and --dry-run belong to --create-alarm on one --queue")
	case o.Prefix != "" && !regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`).MatchString(o.Prefix):
		return cmdutil.UsageErrorf("--prefix %q: a queue name prefix is 1-80 letters, digits, - or _", o.Prefix)
	}
	if err := o.validateConsumer(); err != nil {
		return err
	}
	regions, err := cmdutil.ParseRegions(o.deps.Global.Region)
	if err != nil {
		return err
	}
	o.Regions = regions
	return o.fleet.Validate()
}

// checkAllResult is check --all's --output json (docs/check.md).
type checkAllResult struct {
	Verdict    checkstep.Status   `json:"verdict"`
	Summary    checkAllSummary    `json:"summary"`
	Queues     []checkstep.Swept  `json:"queues"`
	Warnings   []string           `json:"warnings"`
	Unreadable []fleet.Unreadable `json:"unreadable"`
	// Skipped are the organisation's accounts that are not ACTIVE: named,
	// not read, not a failure.
	Skipped []fleet.Unreadable `json:"skipped"`
}

// checkAllSummary counts the queues by verdict.
type checkAllSummary struct {
	Queues int    `json:"queues"`
	Fail   int    `json:"fail"`
	Warn   int    `json:"warn"`
	Pass   int    `json:"pass"`
	Text   string `json:"text"`
}

func runCheckAll(ctx context.Context, o *CheckOptions) error {
	d := o.deps
	res := checkAllResult{Queues: []checkstep.Swept{}, Warnings: []string{}}
	var mu sync.Mutex
	opts := checkstep.SweepOptions{Prefix: o.Prefix, SDKAttempts: o.SDKAttempts, WorkflowAttempts: o.WorkflowAttempts, ReadTimeout: o.ReadTimeout, Now: d.Now}
	unreadable, err := d.ReadFleet(ctx, &o.fleet, o.Regions, func(ctx context.Context, s cmdutil.FleetScope) error {
		db := func(context.Context) (idempotency.DynamoDB, error) { return s.DynamoDB, nil }
		swept, warns, err := checkstep.Sweep(ctx, checkstep.SweepClients{SQS: s.SQS, Alarms: s.CW, Lambda: s.Lambda, Metrics: s.CW,
			Store: checkstep.StoreReader(db, d.Now)}, opts)
		if err != nil {
			return fmt.Errorf("check --all%s: %w", cmdutil.InRegion(s.Region), err)
		}
		mu.Lock()
		defer mu.Unlock()
		res.Queues = append(res.Queues, swept...)
		for _, w := range warns {
			res.Warnings = append(res.Warnings, cmdutil.ScopePrefix(o.fleet.Active(), s)+w)
		}
		return nil
	})
	if err != nil {
		return err
	}
	res.Unreadable, res.Skipped = fleet.Split(unreadable)
	checkstep.SortSwept(res.Queues)
	res.Summary, res.Verdict = summarizeSwept(res.Queues)
	for _, w := range res.Warnings {
		d.Warnf("%s", w)
	}
	if err := o.renderAll(&res); err != nil {
		return err
	}
	switch {
	case res.Verdict == checkstep.Fail:
		return cmdutil.ErrSilentCheckFailed
	case len(res.Unreadable) > 0:
		return cmdutil.UnreadableError(res.Unreadable)
	}
	return nil
}

func summarizeSwept(qs []checkstep.Swept) (checkAllSummary, checkstep.Status) {
	s := checkAllSummary{Queues: len(qs)}
	var all []checkstep.Finding
	for _, q := range qs {
		switch q.Verdict {
		case checkstep.Fail:
			s.Fail++
		case checkstep.Warn:
			s.Warn++
		default:
			s.Pass++
		}
		all = append(all, q.Findings...)
	}
	s.Text = fmt.Sprintf("%s checked: %d failing, %d warned, %d passing", plural.Of(len(qs), "queue", "queues"), s.Fail, s.Warn, s.Pass)
	return s, checkstep.Worst(all)
}

// renderAll prints a row per queue and finding, the failing queues first.
func (o *CheckOptions) renderAll(res *checkAllResult) error {
	d := o.deps
	if d.JSONOutput() {
		return d.PrintJSON(res)
	}
	accounts, regions := o.fleet.Active(), len(o.Regions) > 1
	t := cmdutil.TableData{Headers: []string{"STATUS", "ID", "DLQ", "QUEUE", "FINDING", "FIX"}}
	t.Headers = cmdutil.Scoped(t.Headers, "ACCOUNT", "REGION", accounts, regions)
	t.Below = len(t.Headers) // FIX, 1-based
	for _, q := range res.Queues {
		for _, f := range q.Findings {
			fix := f.Fix
			if fix == "" {
				fix = "-"
			}
			row := []string{string(f.Status), f.ID, q.Queue, f.Queue, f.Message, fix}
			t.Rows = append(t.Rows, cmdutil.Scoped(row, q.Account, q.Region, accounts, regions))
		}
	}
	if len(t.Rows) > 0 {
		if err := d.PrintTable(t); err != nil {
			return err
		}
	}
	fmt.Fprintf(d.IO.ErrOut, "%s; verdict: %s\n", res.Summary.Text, res.Verdict)
	for _, u := range append(res.Unreadable, res.Skipped...) {
		fmt.Fprintln(d.IO.ErrOut, cmdutil.UnreadableLine(u))
	}
	return nil
}
