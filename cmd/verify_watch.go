package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/verify"

	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// redriven reads what the incident recorded of the redrive: the latest
// redrive event's figures and the journal's sent entries.
func (o *verifyOptions) redriven(dlq *sqsapi.Queue) (verify.Redriven, error) {
	d := o.deps
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return verify.Redriven{}, err
	}
	entries, err := redrive.ReadJournal(ws.Path(incident.JournalFile))
	if err != nil {
		return verify.Redriven{}, fmt.Errorf("verify %s: %w", dlq.Name, err)
	}
	ev, ok, err := ws.Latest("redrive")
	if err != nil {
		return verify.Redriven{}, err
	}
	if !ok && len(entries) == 0 {
		return verify.Redriven{}, usageErrorf("nothing to verify: incident %s records no redrive of %s; run mfdlq redrive first, or pass the redrive's --incident", ws.Dir, dlq.Name)
	}
	rec := redrivenFrom(ev.Figures, entries)
	// A big move's journal is compacted: its completed sends are digests.
	if l, err := redrive.ReadLedger(ws.Path(incident.JournalFile), false); err == nil && l.Compacted() {
		rec.Compacted = l
		if rec.Moved == 0 {
			rec.Moved = compactedMoved(l)
		}
	}
	if o.Left >= 0 {
		rec.Left = o.Left
	}
	if rec.DestQueue == "" && rec.DestURL == "" {
		return rec, usageErrorf("nothing to verify: the redrive recorded no destination queue in %s", ws.Dir)
	}
	return rec, nil
}

// redrivenFrom builds the record from the event's figures, falling back on
// the journal for what the event lacks (an interrupted redrive).
func redrivenFrom(fig map[string]any, entries []redrive.Entry) verify.Redriven {
	rec := verify.Redriven{
		Moved: figInt(fig, "moved"), Left: figInt(fig, "skipped") + figInt(fig, "filter_errors") + figInt(fig, "failed"),
		DestQueue: figString(fig, "dest_queue"), DestURL: figString(fig, "dest_url"),
	}
	rec.Native, _ = fig["native"].(bool)
	rec.Target = targetOf(rec.DestURL)
	if keep, _ := fig["keep"].(bool); keep {
		// --keep copied: the originals stay in the DLQ on purpose.
		rec.Left += figInt(fig, "moved")
	}
	if t, err := time.Parse(time.RFC3339, figString(fig, "started_at")); err == nil {
		rec.StartedAt = t
		if d, ok := fig["duration_seconds"].(float64); ok {
			rec.EndedAt = t.Add(time.Duration(d*float64(time.Second)) + time.Second)
		}
	}
	// Every attempt's sends are matched against the DLQ; the figures of
	// the move (its start, what it moved) are the latest attempt's.
	attempt := max(figInt(fig, "attempt"), 1)
	for _, e := range entries {
		attempt = max(attempt, e.Attempt)
	}
	sentIDs := map[string]bool{}
	for _, e := range entries {
		if e.Op != redrive.OpSent {
			continue
		}
		rec.Sent = append(rec.Sent, verify.Sent{DLQMessageID: e.DLQMessageID, DestMessageID: e.DestMessageID, BodySHA256: e.BodySHA256,
			PayloadSHA256: e.PayloadSHA256, SentAt: e.Time})
		if rec.DestQueue == "" {
			rec.DestQueue = e.DestQueue
		}
		if max(e.Attempt, 1) != attempt {
			continue
		}
		sentIDs[e.DLQMessageID] = true
		if rec.StartedAt.IsZero() || e.Time.Before(rec.StartedAt) {
			rec.StartedAt = e.Time
		}
	}
	if rec.Moved == 0 {
		rec.Moved = len(sentIDs)
	}
	return rec
}

// compactedMoved is what a compacted journal sent in its latest attempt,
// for an interrupted redrive whose event is missing.
func compactedMoved(l *redrive.Ledger) int {
	last, sent := 0, map[int]int{}
	for _, c := range l.Counts() {
		if c.Op == redrive.OpSent {
			sent[c.Attempt] += c.N
			last = max(last, c.Attempt)
		}
	}
	return sent[last]
}

func figInt(fig map[string]any, k string) int {
	if f, ok := fig[k].(float64); ok {
		return int(f)
	}
	return 0
}

func figString(fig map[string]any, k string) string {
	s, _ := fig[k].(string)
	return s
}

// destination resolves the queue the messages were moved to.
func (o *verifyOptions) destination(ctx context.Context, c sqsapi.Client, rec verify.Redriven) (*sqsapi.Queue, error) {
	if rec.Target != "" {
		return &sqsapi.Queue{Name: rec.DestQueue, URL: rec.DestURL, ARN: rec.DestURL}, nil
	}
	ref := rec.DestURL
	if ref == "" {
		ref = rec.DestQueue
	}
	q, err := sqsapi.Resolve(ctx, c, ref, o.deps.Region(ctx))
	if err != nil {
		return nil, fmt.Errorf("destination of the redrive: %w", err)
	}
	return q, nil
}

// verifyWatch looks at the queues until the judgement is done or --wait
// runs out.
type verifyWatch struct {
	o         *verifyOptions
	sqs       sqsapi.Client
	cw        cwapi.MetricsAPI
	dlq, dest *sqsapi.Queue
	rec       verify.Redriven
	noMetric  bool
}

func (w *verifyWatch) run(ctx context.Context) (verify.Result, error) {
	start := time.Now()
	deadline := start.Add(w.o.Wait)
	res := verify.Result{Moved: w.rec.Moved, DestQueue: w.dest.Name, Unchecked: []string{}}
	var passingSince time.Time
	passLooks := 0
	for {
		obs, err := w.observe(ctx)
		if err != nil {
			return res, err
		}
		res.Looks++
		j := verify.Judge(obs, w.rec)
		res.Last, res.Returned, res.DLQVisible, res.Reasons, res.Unchecked = obs, obs.Returned, obs.DLQVisible, j.Reasons, j.Unchecked
		res.Waited = time.Since(start).Round(time.Second).Seconds()
		if j.Done && !j.Pass {
			break // redriven messages came back: no need to wait longer
		}
		if !j.Pass {
			passingSince, passLooks = time.Time{}, 0
		} else {
			if passLooks == 0 {
				passingSince = time.Now()
			}
			passLooks++
			// Approximate counts lag: a pass must hold for --settle over
			// two looks at least.
			if w.o.Settle == 0 || (passLooks >= 2 && time.Since(passingSince) >= w.o.Settle) {
				res.Pass = true
				break
			}
			res.Reasons = append(res.Reasons, fmt.Sprintf("passing since %s; it must hold for --settle %s", passingSince.UTC().Format(time.RFC3339), w.o.Settle))
		}
		if time.Now().Add(w.o.Interval).After(deadline) {
			res.Reasons = append(res.Reasons, fmt.Sprintf("not proven within --wait %s: run mfdlq verify again with a longer --wait", w.o.Wait))
			break
		}
		w.status(obs, deadline)
		select {
		case <-ctx.Done():
			w.clearStatus()
			return res, errInterrupted
		case <-time.After(w.o.Interval):
		}
	}
	w.clearStatus()
	res.Verdict = verify.VerdictOf(res.Pass)
	return res, nil
}

// observe reads both queues' depths, peeks at the DLQ for returned
// messages, and reads the destination's deletions from CloudWatch.
func (w *verifyWatch) observe(ctx context.Context) (verify.Observation, error) {
	var obs verify.Observation
	if err := sqsapi.Refresh(ctx, w.sqs, w.dlq); err != nil {
		return obs, fmt.Errorf("verify %s: %w", w.dlq.Name, err)
	}
	if w.rec.Target != "" {
		w.observeFunction(ctx, &obs)
	} else if err := sqsapi.Refresh(ctx, w.sqs, w.dest); err != nil {
		return obs, fmt.Errorf("verify %s: %w", w.dest.Name, err)
	}
	obs.DLQVisible, obs.DLQInFlight = w.dlq.Depth.Visible, w.dlq.Depth.InFlight
	obs.DestVisible, obs.DestInFlight = w.dest.Depth.Visible, w.dest.Depth.InFlight
	obs.Returned = []verify.Returned{}
	if obs.DLQVisible > 0 {
		peek, err := sqsapi.Peek(ctx, w.sqs, w.dlq, sqsapi.PeekOptions{Max: int(min(obs.DLQVisible+10, 1000)), Visibility: 2, Wait: 1})
		if err != nil {
			return obs, fmt.Errorf("verify %s: %w", w.dlq.Name, err)
		}
		obs.Returned = verify.MatchReturned(peek.Messages, w.rec, w.o.deps.Now())
	}
	w.metrics(ctx, &obs)
	return obs, nil
}

// metrics reads the destination's NumberOfMessagesSent over the move and
// NumberOfMessagesDeleted since it began, counting nothing from before it
// (verify.MoveMetric); each is nil when CloudWatch has no data or cannot be
// read. A function, topic or bus has no queue metrics (observeFunction).
func (w *verifyWatch) metrics(ctx context.Context, obs *verify.Observation) {
	if w.noMetric || w.rec.StartedAt.IsZero() || w.rec.Target != "" {
		return
	}
	now := w.o.deps.Now()
	start := w.rec.StartedAt.Truncate(time.Minute).Add(-time.Minute)
	end := now.Add(time.Minute)
	for _, m := range []struct {
		name string
		dst  **float64
		end  time.Time
	}{{cwapi.MetricMessagesSent, &obs.Sent, w.rec.EndedAt}, {cwapi.MetricMessagesDeleted, &obs.Deleted, end}} {
		until := end
		if !m.end.IsZero() {
			// Sends after the move are someone else's.
			until = m.end.Truncate(time.Minute).Add(time.Minute)
		}
		points, err := cwapi.QueueMetric(ctx, w.cw, cwapi.MetricQuery{
			Queue: w.dest.Name, Metric: m.name, Stat: "Sum", Start: start, End: until, Period: time.Minute,
		})
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				w.o.deps.warnf("CloudWatch unavailable (%v): %s and %s not judged", err, cwapi.MetricMessagesSent, cwapi.MetricMessagesDeleted)
				w.noMetric = true
			}
			return
		}
		var partial bool
		*m.dst, partial = verify.MoveMetric(points, w.rec.StartedAt)
		obs.Partial = obs.Partial || partial
	}
}

// status rewrites one line on a terminal's stderr; nothing when piped or
// --quiet.
func (w *verifyWatch) status(obs verify.Observation, deadline time.Time) {
	d := w.o.deps
	if !d.IO.ErrTTY || d.Global.Quiet {
		return
	}
	deleted := "n/a"
	if obs.Deleted != nil {
		deleted = fmt.Sprintf("%.0f/%d", *obs.Deleted, w.rec.Moved)
	}
	if w.rec.Target != "" {
		// A function, topic or bus has no depth to show.
		fmt.Fprintf(d.IO.ErrOut, "\r\x1b[Kverify: DLQ %d · %s · %s left", obs.DLQVisible+obs.DLQInFlight, w.dest.Name, time.Until(deadline).Round(time.Second))
		return
	}
	fmt.Fprintf(d.IO.ErrOut, "\r\x1b[Kverify: DLQ %d · %s %d visible %d in flight · deleted %s · %s left",
		obs.DLQVisible+obs.DLQInFlight, w.dest.Name, obs.DestVisible, obs.DestInFlight, deleted, time.Until(deadline).Round(time.Second))
}

func (w *verifyWatch) clearStatus() {
	d := w.o.deps
	if d.IO.ErrTTY && !d.Global.Quiet {
		fmt.Fprint(d.IO.ErrOut, "\r\x1b[K")
	}
}
