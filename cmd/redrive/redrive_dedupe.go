package redrive

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/dedupe"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
)

// dedupeFlags are redrive's --key and --dedupe.
type dedupeFlags struct {
	KeyExpr string // --key
	On      bool   // --dedupe
}

func (f *dedupeFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.KeyExpr, "key", "", cmdutil.KeyHelp+"; with --dedupe, move the first of each")
	c.Flags().BoolVar(&f.On, "dedupe", false, "move the first message of each --key and leave the others in the DLQ (journaled, counted, never deleted)")
}

// printDedupePlan is the plan's line of --dedupe.
func (o *RedriveOptions) printDedupePlan(p *redrivestep.Plan) {
	if p.Dedupe != nil {
		o.deps.Infof("plan: %s", dedupe.PlanLine(p.Dedupe.Key))
	}
}

// errScanInterrupted: Ctrl-C (or SIGTERM) came during a dry run's scan.
// What was read is made visible again and nothing changed, but the counts
// are of part of the selection: never "the whole selection", exit 130.
var errScanInterrupted = fmt.Errorf("%w: the dry run's scan was cut short, nothing changed", cmdutil.ErrInterrupted)

// printDryRun prints what the dry run's one read of the whole selection
// (redrivestep.ScanDryRun) found.
func (o *RedriveOptions) printDryRun(ctx context.Context, env *redrivestep.Env, p *redrivestep.Plan) error {
	r, err := redrivestep.ScanDryRun(ctx, env, p)
	if r == nil || err != nil {
		return err
	}
	for _, l := range r.Lines(p.Backlog) {
		o.deps.Infof("dry run: %s", l)
	}
	if r.Interrupted {
		return errScanInterrupted
	}
	return nil
}

// dedupeSummaryLine is the summary's JSON line with --dedupe's figures
// ("dedupe", absent without it).
type dedupeSummaryLine struct {
	redrivestep.SummaryLine
	Dedupe *dedupe.Figures `json:"dedupe,omitempty"`
}
