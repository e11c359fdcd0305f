package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsjson"
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

// claims checks --key and --dedupe before any AWS call and returns the
// run's dedupe (nil without --dedupe).
func (f *dedupeFlags) claims(native bool) (*dedupe.Claims, error) {
	switch {
	case f.On && f.KeyExpr == "":
		return nil, usageErrorf(`--dedupe needs --key JQ, the consumer's idempotency key: e.g. --key '"cobro:" + .order_id'`)
	case !f.On && f.KeyExpr != "":
		return nil, usageErrorf("--key on redrive goes with --dedupe (to only count the keys: mfdlq inspect --key or mfdlq classify --key)")
	case !f.On:
		return nil, nil
	case native:
		return nil, usageErrorf("--native moves every message: --dedupe needs mfdlq's own mover (drop --native)")
	}
	k, err := dedupe.Compile(f.KeyExpr, payloadOf(nil))
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return dedupe.NewClaims(k), nil
}

// printDedupePlan is the plan's line of --dedupe.
func (o *redriveOptions) printDedupePlan() {
	if o.Request.Dedupe != nil {
		o.deps.infof("plan: %s", dedupe.PlanLine(o.Request.Dedupe.Key))
	}
}

// dryRunDedupe counts the whole selection's keys without moving anything,
// read as dryRunTransform reads it: what --dedupe would leave.
func (o *redriveOptions) dryRunDedupe(ctx context.Context, env *redrive.Env, p *redrive.Plan) error {
	if p.Req.Dedupe == nil {
		return nil
	}
	tally := dedupe.NewTally(p.Req.Dedupe.Key)
	n, err := o.scanSelection(ctx, env, p, func(m *sqsjson.Message) { tally.Add(m) })
	if errors.Is(err, errNoScan) {
		return nil
	}
	if err != nil && !errors.Is(err, errScanInterrupted) {
		return err
	}
	s := tally.Summary(3)
	d := o.deps
	counts := fmt.Sprintf("%s, %s (they would stay in the DLQ), %s without a key (they would move)",
		plural.Of(s.Keys, "key"), plural.Of(s.Duplicates, "duplicate"), plural.Of(s.NoKey, "message"))
	if err != nil {
		d.infof("dry run: dedupe: %s: %s so far", o.scanCut(p, n), counts)
		return err
	}
	d.infof("dry run: dedupe: the whole selection, %s read and made visible again: %s", plural.Of(n, "message"), counts)
	for _, t := range s.Top {
		d.infof("dry run: dedupe: %s × %d", untrusted.Terminal(strconv.Quote(t.Key)), t.Messages)
	}
	return nil
}

// errNoScan: the source cannot be read as an export (the dry run then
// counts nothing).
var errNoScan = errors.New("the source cannot be scanned")

// errScanInterrupted: Ctrl-C (or SIGTERM) came during a dry run's scan.
// What was read is made visible again and nothing changed, but the counts
// are of part of the selection: never "the whole selection", exit 130.
var errScanInterrupted = fmt.Errorf("%w: the dry run's scan was cut short, nothing changed", errInterrupted)

// scanCut says how far an interrupted scan got: n messages judged of the
// selection's backlog at the plan.
func (o *redriveOptions) scanCut(p *redrive.Plan, n int) string {
	return fmt.Sprintf("interrupted: scanned %d of %d before Ctrl-C, every message read made visible again", n, p.Backlog)
}

// scanSelection calls visit on every message the selection picks, read
// as an export without --delete reads them (held while read, every one
// made visible again at the end), and returns how many were read; a scan
// cut short by ctx (Ctrl-C) is errScanInterrupted.
func (o *redriveOptions) scanSelection(ctx context.Context, env *redrive.Env, p *redrive.Plan, visit func(*sqsjson.Message)) (int, error) {
	var sel func(*sqsjson.Message) (bool, error)
	if p.Req.Selector != nil {
		var err error
		if sel, err = p.Req.Selector(); err != nil {
			return 0, err
		}
	}
	var c archive.SQS = env.SQS
	if p.Source.File != nil {
		fc, ok := p.Source.File.(archive.SQS)
		if !ok {
			return 0, errNoScan
		}
		c = fc
	}
	st, err := archive.Export(ctx, c, discard{}, archive.Options{Queue: p.Source.Queue, Backlog: int(p.Backlog), Select: func(m *sqsjson.Message) (bool, error) {
		if sel != nil {
			if ok, err := sel(m); err != nil || !ok {
				return false, nil
			}
		}
		visit(m)
		return false, nil
	}})
	if err == nil && (st.Interrupted || ctx.Err() != nil) {
		err = errScanInterrupted
	}
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		err = errScanInterrupted
	}
	return st.Received, err
}

// printDedupeSummary says what --dedupe left.
func (o *redriveOptions) printDedupeSummary() {
	if f := o.Request.Dedupe.Figures(); f != nil {
		o.deps.infof("%s", f.SummaryLine())
	}
}

// dedupeSummaryLine is the summary's JSON line with --dedupe's figures
// ("dedupe", absent without it).
type dedupeSummaryLine struct {
	redrive.SummaryLine
	Dedupe *dedupe.Figures `json:"dedupe,omitempty"`
}
