package redrive

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/transform"
	"github.com/mfdlq/mfdlq/untrusted"
)

// DryRun is what a dry run read of the whole selection, in one pass over
// the DLQ: the --transform's counts over every selected message and the
// --dedupe's key summary, each nil when its flag is not given.
type DryRun struct {
	// Read is how many messages the scan received (selected or not);
	// Cut how many of them a Ctrl-C left without the program's verdict.
	Read, Cut int
	// Interrupted: Ctrl-C (or SIGTERM) came during the scan. What was read
	// is visible again and nothing changed, but the counts are of part of
	// the selection: never "the whole selection".
	Interrupted bool
	Transform   *transform.Figures
	Dedupe      *dedupe.Summary
}

// dryRunTop is how many of the most-copied keys a dry run names.
const dryRunTop = 3

// ScanDryRun reads the plan's whole selection once, as an export without
// --delete reads a DLQ (each message held while read, every one made
// visible again at the end, none written anywhere), and runs over each
// selected message what the move would: the transform and the dedupe
// tally together. It returns nil, nil when there is nothing to count (no
// --transform, no --dedupe) or the source cannot be scanned (a replay's
// file that is no archive.SQS).
func ScanDryRun(ctx context.Context, env *Env, p *Plan) (*DryRun, error) {
	if p.Transform == nil && p.Dedupe == nil {
		return nil, nil
	}
	var c archive.SQS = env.SQS
	if p.Source.File != nil {
		fc, ok := p.Source.File.(archive.SQS)
		if !ok {
			return nil, nil
		}
		c = fc
	}
	var pv *transform.Preview
	var tally *dedupe.Tally
	if p.Transform != nil {
		pv = transform.NewPreview(p.Transform)
	}
	if p.Dedupe != nil {
		tally = dedupe.NewTally(p.Dedupe.Key)
	}
	d, pos, lim := &DryRun{}, 0, p.TransformLimits()
	visit := func(m *sqsjson.Message) {
		if tally != nil {
			tally.Add(m)
		}
		if pv == nil {
			return
		}
		pos++
		r := p.Transform.Apply(ctx, m, lim)
		if r.Interrupted {
			d.Cut++ // Ctrl-C came while the program ran on it: no verdict
			return
		}
		pv.Add(pos, m, r)
	}
	st, err := archive.Export(ctx, c, discard{}, archive.Options{Queue: p.Source.Queue, Backlog: p.Backlog, Select: func(m *sqsjson.Message) (bool, error) {
		if ok, err := p.Select.Match(m); err == nil && ok {
			visit(m)
		}
		return false, nil // written nowhere: every message is made visible again
	}})
	d.Read = st.Received
	d.Interrupted = st.Interrupted || ctx.Err() != nil
	if err != nil && !(d.Interrupted && errors.Is(err, context.Canceled)) {
		return d, err
	}
	if pv != nil {
		f := pv.Figures()
		d.Transform = &f
	}
	if tally != nil {
		s := tally.Summary(dryRunTop)
		d.Dedupe = &s
	}
	return d, nil
}

// Lines say what the dry run found, for the terminal: the transform's
// counts and failures, then the keys and the most-copied ones; an
// interrupted scan says how far it got of backlog, its counts "so far".
func (d *DryRun) Lines(backlog int) []string {
	var out []string
	cut := func(n int) string {
		return fmt.Sprintf("interrupted: scanned %d of %d before Ctrl-C, every message read made visible again", n, backlog)
	}
	if f := d.Transform; f != nil {
		counts := fmt.Sprintf("%d changed, %d unchanged, %d failed (they would stay in the DLQ)", f.Changed, f.Unchanged, f.Failed)
		if d.Interrupted {
			out = append(out, fmt.Sprintf("%s: %s so far", cut(d.Read-d.Cut), counts))
		} else {
			out = append(out, fmt.Sprintf("the whole selection, %s read and made visible again: %s", plural.Of(d.Read, "message"), counts))
		}
		for _, t := range f.FailureTexts {
			out = append(out, "failed: "+t)
		}
	}
	if s := d.Dedupe; s != nil {
		counts := fmt.Sprintf("%s, %s (they would stay in the DLQ), %s without a key (they would move)",
			plural.Of(s.Keys, "key"), plural.Of(s.Duplicates, "duplicate"), plural.Of(s.NoKey, "message"))
		if d.Interrupted {
			return append(out, fmt.Sprintf("dedupe: %s: %s so far", cut(d.Read), counts))
		}
		out = append(out, fmt.Sprintf("dedupe: the whole selection, %s read and made visible again: %s", plural.Of(d.Read, "message"), counts))
		for _, t := range s.Top {
			out = append(out, fmt.Sprintf("dedupe: %s × %d", untrusted.Terminal(strconv.Quote(t.Key)), t.Messages))
		}
	}
	return out
}

// discard is an export Sink that keeps nothing: a dry run's scan.
type discard struct{}

func (discard) Write(p []byte) (int, error)            { return len(p), nil }
func (discard) Commit(context.Context) (string, error) { return "", nil }
func (discard) Abort()                                 {}
func (discard) Size() int64                            { return 0 }
func (discard) SHA256() string                         { return "" }
