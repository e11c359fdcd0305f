package cmd

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// keyHelp is --key's help, shared by inspect, classify and redrive.
const keyHelp = `the consumer's idempotency key, a jq expression over the payload (inside an SNS or EventBridge envelope, the inner message), e.g. '"cobro:" + .order_id': count the messages that share one`

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

// payloadOf is the payload a --key reads: what d (inspect's and
// classify's --payload) finds, or envelope.Detect's without one — the
// inner message of an SNS or EventBridge envelope, as the mover and
// --transform see it.
func payloadOf(d *envelope.Detector) dedupe.Payload {
	detect := envelope.Detect
	if d != nil {
		detect = d.Detect
	}
	return func(m *sqsjson.Message) ([]byte, bool) {
		env := detect(m)
		return env.Payload, env.PayloadJSON
	}
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

// printKeyDuplicates shows what a --key tally found (inspect, classify):
// one line of counts on stderr, then the most-copied keys on stdout, with
// their MessageIds (sanitised by dedupe; shortened here).
func (d *Deps) printKeyDuplicates(s *dedupe.Summary) error {
	line := fmt.Sprintf("by idempotency key (--key %s): %s, %s; %s an earlier one's key (redrive --dedupe leaves them in the DLQ)",
		untrusted.Terminal(strconv.Quote(untrusted.Head(s.Expr, 120))), plural.Of(s.Messages, "message"), plural.Of(s.Keys, "key"),
		plural.Of(s.Duplicates, "message shares", "messages share"))
	if s.NoKey > 0 {
		line += fmt.Sprintf("; %s no key", plural.Of(s.NoKey, "message has", "messages have"))
		if len(s.NoKeyReasons) > 0 {
			line += " (" + untrusted.Terminal(s.NoKeyReasons[0]) + ")"
		}
	}
	d.infof("%s", line)
	if len(s.Top) == 0 {
		return nil
	}
	t := tableData{Headers: []string{"MESSAGES", "KEY", "DUPLICATES (MESSAGE IDS)"}}
	for _, k := range s.Top {
		ids := strings.Join(k.MessageIDs, " ")
		if k.Messages-1 > len(k.MessageIDs) {
			ids += " …"
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(k.Messages), excerpt(k.Key, 80), excerpt(ids, 160)})
	}
	return d.printTable(t)
}

// dedupeSummaryLine is the summary's JSON line with --dedupe's figures
// ("dedupe", absent without it).
type dedupeSummaryLine struct {
	redrive.SummaryLine
	Dedupe *dedupe.Figures `json:"dedupe,omitempty"`
}
