package cmd

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/untrusted"
)

// dedupeFlags are redrive's --key and --dedupe.
type dedupeFlags struct {
	KeyExpr string // --key
	On      bool   // --dedupe
}

func (f *dedupeFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.KeyExpr, "key", "", keyHelp+"; with --dedupe, move the first of each")
	c.Flags().BoolVar(&f.On, "dedupe", false, "move the first message of each --key and leave the others in the DLQ (journaled, counted, never deleted)")
}

// key checks --key and --dedupe before any AWS call and returns the
// key's expression ("" without --dedupe): redrive.Resolve compiles it into
// the run's claims.
func (f *dedupeFlags) key(native bool) (string, error) {
	switch {
	case f.On && f.KeyExpr == "":
		return "", usageErrorf(`--dedupe needs --key JQ, the consumer's idempotency key: e.g. --key '"cobro:" + .order_id'`)
	case !f.On && f.KeyExpr != "":
		return "", usageErrorf("--key on redrive goes with --dedupe (to only count the keys: mfdlq inspect --key or mfdlq classify --key)")
	case !f.On:
		return "", nil
	case native:
		return "", usageErrorf("--native moves every message: --dedupe needs mfdlq's own mover (drop --native)")
	}
	if _, err := dedupe.Compile(f.KeyExpr, payloadOf(nil)); err != nil {
		return "", usageErrorf("%v", err)
	}
	return f.KeyExpr, nil
}

// printDedupePlan is the plan's line of --dedupe.
func (o *redriveOptions) printDedupePlan(p *redrive.Plan) {
	if p.Dedupe != nil {
		o.deps.infof("plan: %s", dedupe.PlanLine(p.Dedupe.Key))
	}
}

// errScanInterrupted: Ctrl-C (or SIGTERM) came during a dry run's scan.
// What was read is made visible again and nothing changed, but the counts
// are of part of the selection: never "the whole selection", exit 130.
var errScanInterrupted = fmt.Errorf("%w: the dry run's scan was cut short, nothing changed", errInterrupted)

// printDryRun prints what the dry run's one read of the whole selection
// (redrive.ScanDryRun) found: the transform's counts, then the keys.
func (o *redriveOptions) printDryRun(ctx context.Context, env *redrive.Env, p *redrive.Plan) error {
	r, err := redrive.ScanDryRun(ctx, env, p)
	if r == nil || err != nil {
		return err
	}
	d := o.deps
	cut := func(n int) string {
		return fmt.Sprintf("interrupted: scanned %d of %d before Ctrl-C, every message read made visible again", n, p.Backlog)
	}
	if f := r.Transform; f != nil {
		counts := fmt.Sprintf("%d changed, %d unchanged, %d failed (they would stay in the DLQ)", f.Changed, f.Unchanged, f.Failed)
		if r.Interrupted {
			d.infof("dry run: %s: %s so far", cut(r.Read-r.Cut), counts)
		} else {
			d.infof("dry run: the whole selection, %s read and made visible again: %s", plural.Of(r.Read, "message"), counts)
		}
		for _, t := range f.FailureTexts {
			d.infof("dry run: failed: %s", t)
		}
	}
	if s := r.Dedupe; s != nil {
		counts := fmt.Sprintf("%s, %s (they would stay in the DLQ), %s without a key (they would move)",
			plural.Of(s.Keys, "key"), plural.Of(s.Duplicates, "duplicate"), plural.Of(s.NoKey, "message"))
		if r.Interrupted {
			d.infof("dry run: dedupe: %s: %s so far", cut(r.Read), counts)
		} else {
			d.infof("dry run: dedupe: the whole selection, %s read and made visible again: %s", plural.Of(r.Read, "message"), counts)
			for _, t := range s.Top {
				d.infof("dry run: dedupe: %s × %d", untrusted.Terminal(strconv.Quote(t.Key)), t.Messages)
			}
		}
	}
	if r.Interrupted {
		return errScanInterrupted
	}
	return nil
}

// printDedupeSummary says what --dedupe left.
func (o *redriveOptions) printDedupeSummary(p *redrive.Plan) {
	if f := p.Dedupe.Figures(); f != nil {
		o.deps.infof("%s", f.SummaryLine())
	}
}

// dedupeSummaryLine is the summary's JSON line with --dedupe's figures
// ("dedupe", absent without it).
type dedupeSummaryLine struct {
	redrive.SummaryLine
	Dedupe *dedupe.Figures `json:"dedupe,omitempty"`
}
