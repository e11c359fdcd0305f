package cmd

import (
	"context"
	"fmt"
	"regexp"
	"sync"

	"github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/fleet"
	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/plural"
)

// validateAll checks the flags of check --all.
func (o *checkOptions) validateAll() error {
	switch {
	case !o.All:
		return usageErrorf("--accounts, --profiles and --prefix are used with --all")
	case o.Topic != "" || o.Yes || o.DryRun:
		return usageErrorf("--all only reads: --topic, --yes and --dry-run belong to --create-alarm on one --queue")
	case o.Prefix != "" && !regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`).MatchString(o.Prefix):
		return usageErrorf("--prefix %q: a queue name prefix is 1-80 letters, digits, - or _", o.Prefix)
	case o.SDKAttempts < 1 || o.SDKAttempts > 20:
		return usageErrorf("--sdk-attempts must be between 1 and 20, got %d", o.SDKAttempts)
	case o.WorkflowAttempts < 1 || o.WorkflowAttempts > 20:
		return usageErrorf("--workflow-attempts must be between 1 and 20, got %d", o.WorkflowAttempts)
	case o.ReadTimeout < 0:
		return usageErrorf("--read-timeout must not be negative, got %s", o.ReadTimeout)
	}
	regions, err := parseRegions(o.deps.Global.Region)
	if err != nil {
		return err
	}
	o.Regions = regions
	return o.fleet.Validate()
}

// checkAllResult is check --all's --output json (docs/check.md).
type checkAllResult struct {
	Verdict    check.Status       `json:"verdict"`
	Summary    checkAllSummary    `json:"summary"`
	Queues     []check.Swept      `json:"queues"`
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

func runCheckAll(ctx context.Context, o *checkOptions) error {
	d := o.deps
	res := checkAllResult{Queues: []check.Swept{}, Warnings: []string{}}
	var mu sync.Mutex
	opts := check.SweepOptions{Prefix: o.Prefix, SDKAttempts: o.SDKAttempts, WorkflowAttempts: o.WorkflowAttempts, ReadTimeout: o.ReadTimeout, Now: d.Now}
	unreadable, err := d.readFleet(ctx, &o.fleet, o.Regions, func(ctx context.Context, s fleetScope) error {
		db := func(context.Context) (idempotency.DynamoDB, error) { return s.DynamoDB, nil }
		swept, warns, err := check.Sweep(ctx, check.SweepClients{SQS: s.SQS, Alarms: s.CW, Lambda: s.Lambda, Metrics: s.CW,
			Store: check.StoreReader(db, d.Now)}, opts)
		if err != nil {
			return fmt.Errorf("check --all%s: %w", inRegion(s.Region), err)
		}
		mu.Lock()
		defer mu.Unlock()
		res.Queues = append(res.Queues, swept...)
		for _, w := range warns {
			res.Warnings = append(res.Warnings, scopePrefix(o.fleet.Active(), s)+w)
		}
		return nil
	})
	if err != nil {
		return err
	}
	res.Unreadable, res.Skipped = fleet.Split(unreadable)
	check.SortSwept(res.Queues)
	res.Summary, res.Verdict = summarizeSwept(res.Queues)
	for _, w := range res.Warnings {
		d.warnf("%s", w)
	}
	if err := o.renderAll(&res); err != nil {
		return err
	}
	switch {
	case res.Verdict == check.Fail:
		return errSilentCheckFailed
	case len(res.Unreadable) > 0:
		return unreadableError(res.Unreadable)
	}
	return nil
}

func summarizeSwept(qs []check.Swept) (checkAllSummary, check.Status) {
	s := checkAllSummary{Queues: len(qs)}
	var all []check.Finding
	for _, q := range qs {
		switch q.Verdict {
		case check.Fail:
			s.Fail++
		case check.Warn:
			s.Warn++
		default:
			s.Pass++
		}
		all = append(all, q.Findings...)
	}
	s.Text = fmt.Sprintf("%s checked: %d failing, %d warned, %d passing", plural.Of(len(qs), "queue", "queues"), s.Fail, s.Warn, s.Pass)
	return s, check.Worst(all)
}

// renderAll prints a row per queue and finding, the failing queues first.
func (o *checkOptions) renderAll(res *checkAllResult) error {
	d := o.deps
	if d.jsonOutput() {
		return d.printJSON(res)
	}
	accounts, regions := o.fleet.Active(), len(o.Regions) > 1
	t := tableData{Headers: []string{"STATUS", "ID", "DLQ", "QUEUE", "FINDING", "FIX"}}
	if regions {
		t.Headers = append([]string{"REGION"}, t.Headers...)
	}
	if accounts {
		t.Headers = append([]string{"ACCOUNT"}, t.Headers...)
	}
	t.Below = len(t.Headers) // FIX, 1-based
	for _, q := range res.Queues {
		for _, f := range q.Findings {
			fix := f.Fix
			if fix == "" {
				fix = "-"
			}
			row := []string{string(f.Status), f.ID, q.Queue, f.Queue, f.Message, fix}
			if regions {
				row = append([]string{q.Region}, row...)
			}
			if accounts {
				row = append([]string{q.Account}, row...)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	if len(t.Rows) > 0 {
		if err := d.printTable(t); err != nil {
			return err
		}
	}
	fmt.Fprintf(d.IO.ErrOut, "%s; verdict: %s\n", res.Summary.Text, res.Verdict)
	for _, u := range append(res.Unreadable, res.Skipped...) {
		fmt.Fprintln(d.IO.ErrOut, unreadableLine(u))
	}
	return nil
}
