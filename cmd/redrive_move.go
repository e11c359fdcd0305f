package cmd

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// move runs the canary (if any) and then the rest, journaling every step.
func (o *redriveOptions) move(ctx context.Context, client sqsapi.Client, ws *incident.Workspace, p *redrivePlan) error {
	d := o.deps
	tuneGC(p.backlog)
	// A file replay keeps the deleted lines' digests: the file still holds them.
	jw, state, err := redrive.OpenJournal(ws.Path(incident.JournalFile), p.attempt, p.source != nil)
	if err != nil {
		return err
	}
	defer func() {
		if err := jw.Close(); err != nil {
			// The moves are done and written; only their trip to the disk
			// failed, so a power cut now could cost resends.
			d.warnf("%s: %v", incident.JournalFile, err)
		}
	}()
	sel, err := o.selector(ws)
	if err != nil {
		return err
	}
	started, wall := d.Now(), time.Now()
	p.rateStart = redrive.RateStart(o.Rate, p.rateFrom, wall)
	prog := &redriveProgress{d: d, total: p.bound, start: p.rateStart, visibility: o.Visibility, rate: o.Rate}
	base := redrive.Options{
		Source: p.dlq, Dest: p.dest, Target: p.target, Rate: o.Rate, RateFrom: p.rateStart, Workers: o.Workers, MaxWorkers: o.MaxWorkers, Backlog: p.backlog,
		Keep: o.Keep, Select: sel, Visibility: int32(o.Visibility), Wait: 2,
		MaxBacklog: o.MaxBacklog, MaxReturned: o.MaxReturned, Run: p.run, Attempt: p.attempt,
		Journal: jw, State: state, Retry: redrive.DefaultRetry(), Progress: prog.update,
	}
	var total redrive.Stats
	if p.canary > 0 {
		st, err := o.runMover(ctx, p.mover(client), base, p.canary, prog)
		total = st
		back := 0
		if err == nil && ctx.Err() == nil && st.Halted == "" {
			back, err = o.checkCanary(ctx, client, p, state, st)
			total.Returned += back
		}
		if err != nil || ctx.Err() != nil || total.Halted != "" || back > 0 {
			return o.done(ctx, ws, p, started, wall, total, back, err)
		}
		// The rest's rate starts after the canary's wait.
		base.RateFrom = time.Time{}
	}
	st, err := o.runMover(ctx, p.mover(client), base, p.bound-total.Handled(), prog)
	return o.done(ctx, ws, p, started, wall, sumStats(total, st), 0, err)
}

func (o *redriveOptions) runMover(ctx context.Context, client redrive.SQS, opts redrive.Options, limit int, prog *redriveProgress) (redrive.Stats, error) {
	opts.Max = limit
	m, err := redrive.NewMover(client, opts)
	if err != nil {
		return redrive.Stats{}, err
	}
	prog.base = prog.last
	st, err := m.Run(ctx)
	prog.finish()
	return st, err
}

// checkCanary waits for the consumer to fail the canary again and says
// what came back.
func (o *redriveOptions) checkCanary(ctx context.Context, client sqsapi.Client, p *redrivePlan, state *redrive.State, st redrive.Stats) (int, error) {
	d := o.deps
	dlq := p.dlq
	if p.source != nil {
		// From a file, returns land in the destination's own DLQ.
		if dlq = p.returnsTo; dlq == nil {
			d.warnf("canary: %s has no DLQ to look in: moving the rest", p.dest.Name)
			return 0, nil
		}
	}
	d.infof("canary: %d moved; waiting %s for %s's consumer before moving the rest", st.Moved, p.wait, p.dest.Name)
	res, err := redrive.CheckCanary(ctx, client, dlq, state, st.Moved, p.wait)
	if err == nil && res.Failed() {
		d.warnf("%s", res.Reason(dlq.Name))
	}
	return res.Back, err
}

// done prints the summary, appends the event and maps the outcome.
func (o *redriveOptions) done(ctx context.Context, ws *incident.Workspace, p *redrivePlan, started time.Time, wall time.Time, st redrive.Stats, canaryBack int, runErr error) error {
	d := o.deps
	dur := time.Since(wall)
	moved := st.Moved + st.Resumed
	// At a --rate the achieved rate counts from the rate's clock (at the
	// lease request, at most a bucket before the move), so that it
	// compares with --rate.
	achieved, since := 0.0, dur
	if !p.rateStart.IsZero() {
		since = time.Since(p.rateStart)
	}
	if since > 0 {
		achieved = float64(moved) / since.Seconds()
	}
	sum := map[string]any{
		"type": "summary", "moved": moved, "resumed": st.Resumed, "skipped": st.Skipped, "filter_errors": st.FilterErrors, "failed": st.Failed,
		"returned": st.Returned, "pending_delete": st.PendingDelete, "duration_seconds": round2(dur.Seconds()),
		"achieved_rate": round2(achieved), "halted": st.Halted, "peak_workers": st.PeakWorkers,
	}
	if err := o.printSummary(sum); err != nil {
		return err
	}
	ev := d.Event("redrive", p.dlq)
	ev.Inputs = map[string]any{"to": p.dest.Name, "rate": o.RateFlag, "max": o.Max, "filter": o.Filter,
		"sent_after": o.SentAfter, "sent_before": o.SentBefore, "group": o.Group, "canary": p.canary, "keep": o.Keep, "native": o.Native,
		"from_file": o.FromFile}
	ev.Figures = map[string]any{
		"moved": moved, "resumed": st.Resumed, "failed": st.Failed, "skipped": st.Skipped, "filter_errors": st.FilterErrors, "returned": st.Returned,
		"pending_delete": st.PendingDelete, "duration_seconds": round2(dur.Seconds()), "achieved_rate": round2(achieved),
		"rate": o.Rate, "dest_queue": p.dest.Name, "dest_url": p.dest.URL, "started_at": started.UTC().Format(time.RFC3339),
		"native": o.Native, "keep": o.Keep, "attempt": max(p.attempt, 1), "peak_workers": st.PeakWorkers,
	}
	if len(p.consumers) > 0 {
		ev.Figures["consumers"] = p.consumers
	}
	ev.Artifact = incident.JournalFile
	if err := ws.Append(ev); err != nil {
		return err
	}
	if canaryBack > 0 && runErr == nil && st.Halted == "" {
		return checkFailedf("canary: %s came back to %s: the fix is not the right one — back to step 2 (mfdlq classify)", plural.Of(canaryBack, "moved message"), p.dlq.Name)
	}
	if st.Returned > 0 {
		d.warnf("%s came back to %s after attempt %d and were not moved again: once a new fix is deployed, record it with --fixed \"what changed\" to move them in attempt %d", plural.Of(st.Returned, "message"), p.dlq.Name, p.attempt, p.attempt+1)
	}
	if st.Behind != "" && o.Rate > 0 && achieved < 0.97*o.Rate {
		d.warnf("--rate %g not reached (%.1f msg/s): %s", o.Rate, achieved, st.Behind)
	}
	if err := o.finish(ctx, st, runErr); err != nil {
		return err
	}
	if moved == 0 && st.Returned > 0 {
		return checkFailedf("nothing moved: the %s left came back after attempt %d; deploy a new fix and pass --fixed \"what changed\"", plural.Of(st.Returned, "message"), p.attempt)
	}
	d.infof("moved %s to %s in %s (%.1f msg/s)", plural.Of(moved, "message"), p.dest.Name, dur.Round(100*time.Millisecond), achieved)
	if p.source != nil {
		d.nextStep("watch %s's consumer; %s is unchanged", p.dest.Name, o.FromFile)
		return nil
	}
	d.nextStep("mfdlq verify --queue %s", p.dlq.Name)
	return nil
}

func (o *redriveOptions) printSummary(sum map[string]any) error {
	d := o.deps
	if d.jsonOutput() {
		return d.printJSONLine(sum)
	}
	t := tableData{Headers: []string{"MOVED", "RESUMED", "SKIPPED", "FILTER ERRORS", "FAILED", "RETURNED", "DURATION", "RATE"}}
	t.Rows = append(t.Rows, []string{fmt.Sprint(sum["moved"]), fmt.Sprint(sum["resumed"]), fmt.Sprint(sum["skipped"]), fmt.Sprint(sum["filter_errors"]),
		fmt.Sprint(sum["failed"]), fmt.Sprint(sum["returned"]), fmt.Sprintf("%.1fs", sum["duration_seconds"]), fmt.Sprintf("%.1f/s", sum["achieved_rate"])})
	return d.printTable(t)
}

func sumStats(a, b redrive.Stats) redrive.Stats {
	a.Moved += b.Moved
	a.Resumed += b.Resumed
	a.Skipped += b.Skipped
	a.FilterErrors += b.FilterErrors
	for _, t := range b.FilterErrorTexts {
		if len(a.FilterErrorTexts) < 3 && !slices.Contains(a.FilterErrorTexts, t) {
			a.FilterErrorTexts = append(a.FilterErrorTexts, t)
		}
	}
	a.Failed += b.Failed
	a.Returned += b.Returned
	a.PendingDelete += b.PendingDelete
	a.Hidden = b.Hidden // a moment's figure, not a count
	a.Workers, a.Behind = b.Workers, b.Behind
	a.PeakWorkers = max(a.PeakWorkers, b.PeakWorkers)
	if b.Halted != "" {
		a.Halted = b.Halted
	}
	if b.LastError != "" {
		a.LastError = b.LastError
	}
	return a
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// redriveProgress draws a bar on a terminal's stderr, or JSON lines of
// type progress with --output json, at most a few times a second.
type redriveProgress struct {
	d          *Deps
	total      int
	start      time.Time
	mu         sync.Mutex
	shown      time.Time
	visibility int           // --visibility: the longest a hidden message stays away
	rate       float64       // --rate (0: max)
	base       redrive.Stats // figures of an earlier phase (the canary)
	last       redrive.Stats
	drawn      bool
}

func (p *redriveProgress) update(st redrive.Stats) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = sumStats(p.base, st)
	p.draw(false)
}

// draw shows p.last; force skips the throttle (the final state).
func (p *redriveProgress) draw(force bool) {
	st, d := p.last, p.d
	json := d.jsonOutput()
	every := 200 * time.Millisecond
	if json {
		every = time.Second
	}
	if (!force && time.Since(p.shown) < every) || (!json && (!d.IO.ErrTTY || d.Global.Quiet)) {
		return
	}
	p.shown = time.Now()
	done := st.Moved + st.Resumed
	el := time.Since(p.start).Seconds()
	r := float64(done) / max(el, 0.001)
	if json {
		_ = d.printJSONLine(map[string]any{"type": "progress", "moved": done, "total": p.total, "skipped": st.Skipped,
			"filter_errors": st.FilterErrors, "failed": st.Failed, "returned": st.Returned, "hidden": st.Hidden, "elapsed_seconds": round2(el), "rate": round2(r),
			"workers": st.Workers, "behind": st.Behind})
		return
	}
	eta := "?"
	if r > 0 {
		eta = (time.Duration(float64(p.total-done)/r) * time.Second).Round(time.Second).String()
	}
	width := 30
	fill := width * min(done, p.total) / max(p.total, 1)
	wait := ""
	if st.Hidden > 0 {
		// Not stuck: messages hidden by a killed run or a lost receive
		// answer come back after their visibility timeout.
		wait = fmt.Sprintf(" · waiting up to %ds for %s to reappear", p.visibility, plural.Of(st.Hidden, "hidden message"))
	}
	if st.Behind != "" {
		wait += fmt.Sprintf(" · below --rate %g: %s", p.rate, st.Behind)
	}
	fmt.Fprintf(d.IO.ErrOut, "\r\x1b[K[%s%s] %d/%d · %.1f msg/s · %d in flight · ETA %s%s", strings.Repeat("█", fill), strings.Repeat("░", width-fill), done, p.total, r, st.Workers, eta, wait)
	p.drawn = true
}

func (p *redriveProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		p.draw(true)
		fmt.Fprintln(p.d.IO.ErrOut)
		p.drawn = false
	}
}

// tuneGC trades memory for CPU during a move, unless GOGC or GOMEMLIMIT
// say otherwise: the collector runs when the heap has grown by 4× its live
// size rather than 2× — at --rate max a move shares the CPU with the HTTP
// and JSON work of every call, and the default collector cost about a
// tenth of the rate (docs/redrive.md) — but no later than at
// redrive.MemoryLimit(backlog), which bounds the process's memory.
func tuneGC(backlog int) {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(redrive.MemoryLimit(backlog))
	}
}
