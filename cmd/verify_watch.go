package cmd

import (
	"context"
	"errors"
	"fmt"
	"github.com/mfdlq/mfdlq/incident"
	"time"

	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/vitals"
)

// verifyResult is verify's --output json and verify.json.
type verifyResult struct {
	Pass       bool               `json:"pass"`
	Verdict    string             `json:"verdict"`
	DLQVisible int64              `json:"dlq_visible"`
	Returned   []vitals.Returned  `json:"returned"`
	Reasons    []string           `json:"reasons"`
	Moved      int                `json:"moved"`
	DestQueue  string             `json:"dest_queue"`
	Looks      int                `json:"looks"`
	Waited     float64            `json:"waited_seconds"`
	Last       vitals.Observation `json:"last"`
}

// redriven reads what the incident recorded of the redrive: the latest
// redrive event's figures and the journal's sent entries.
func (o *verifyOptions) redriven(dlq *sqsapi.Queue) (vitals.Redriven, error) {
	d := o.deps
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return vitals.Redriven{}, err
	}
	entries, err := redrive.ReadJournal(ws.Path(incident.JournalFile))
	if err != nil {
		return vitals.Redriven{}, fmt.Errorf("verify %s: %w", dlq.Name, err)
	}
	ev, ok, err := ws.Latest("redrive")
	if err != nil {
		return vitals.Redriven{}, err
	}
	if !ok && len(entries) == 0 {
		return vitals.Redriven{}, usageErrorf("nothing to verify: incident %s records no redrive of %s; run mfdlq redrive first, or pass the redrive's --incident", ws.Dir, dlq.Name)
	}
	rec := redrivenFrom(ev.Figures, entries)
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
func redrivenFrom(fig map[string]any, entries []redrive.Entry) vitals.Redriven {
	rec := vitals.Redriven{
		Moved: figInt(fig, "moved"), Left: figInt(fig, "skipped") + figInt(fig, "failed"),
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
	}
	sentIDs := map[string]bool{}
	for _, e := range entries {
		if e.Op != redrive.OpSent {
			continue
		}
		rec.Sent = append(rec.Sent, e)
		sentIDs[e.DLQMessageID] = true
		if rec.DestQueue == "" {
			rec.DestQueue = e.DestQueue
		}
		if rec.StartedAt.IsZero() || e.Time.Before(rec.StartedAt) {
			rec.StartedAt = e.Time
		}
	}
	if rec.Moved == 0 {
		rec.Moved = len(sentIDs)
	}
	return rec
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
func (o *verifyOptions) destination(ctx context.Context, c sqsapi.Client, rec vitals.Redriven) (*sqsapi.Queue, error) {
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
	cw        vitals.MetricsAPI
	dlq, dest *sqsapi.Queue
	rec       vitals.Redriven
	noMetric  bool
}

func (w *verifyWatch) run(ctx context.Context) (verifyResult, error) {
	start := time.Now()
	deadline := start.Add(w.o.Wait)
	res := verifyResult{Moved: w.rec.Moved, DestQueue: w.dest.Name}
	var passingSince time.Time
	passLooks := 0
	for {
		obs, err := w.observe(ctx)
		if err != nil {
			return res, err
		}
		res.Looks++
		j := vitals.JudgeVerify(obs, w.rec)
		res.Last, res.Returned, res.DLQVisible, res.Reasons = obs, obs.Returned, obs.DLQVisible, j.Reasons
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
	res.Verdict = map[bool]string{true: "pass", false: "fail"}[res.Pass]
	return res, nil
}

// observe reads both queues' depths, peeks at the DLQ for returned
// messages, and reads the destination's deletions from CloudWatch.
func (w *verifyWatch) observe(ctx context.Context) (vitals.Observation, error) {
	var obs vitals.Observation
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
	obs.Returned = []vitals.Returned{}
	if obs.DLQVisible > 0 {
		peek, err := sqsapi.Peek(ctx, w.sqs, w.dlq, sqsapi.PeekOptions{Max: int(min(obs.DLQVisible+10, 1000)), Visibility: 2, Wait: 1})
		if err != nil {
			return obs, fmt.Errorf("verify %s: %w", w.dlq.Name, err)
		}
		obs.Returned = vitals.MatchReturned(peek.Messages, w.rec, w.o.deps.Now())
	}
	obs.Deleted = w.deleted(ctx)
	return obs, nil
}

// deleted sums the destination's NumberOfMessagesDeleted from the minute
// the redrive began; nil when CloudWatch has no data or cannot be read.
func (w *verifyWatch) deleted(ctx context.Context) *float64 {
	if w.noMetric || w.rec.StartedAt.IsZero() || w.rec.Target != "" {
		return nil
	}
	now := w.o.deps.Now()
	points, err := vitals.QueueMetric(ctx, w.cw, vitals.MetricQuery{
		Queue: w.dest.Name, Metric: vitals.MetricMessagesDeleted, Stat: "Sum",
		Start: w.rec.StartedAt.Truncate(time.Minute), End: now.Add(time.Minute), Period: time.Minute,
	})
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			w.o.deps.warnf("CloudWatch unavailable (%v): NumberOfMessagesDeleted not judged", err)
			w.noMetric = true
		}
		return nil
	}
	if len(points) == 0 {
		return nil
	}
	var sum float64
	for _, p := range points {
		sum += p.Value
	}
	return &sum
}

// status rewrites one line on a terminal's stderr; nothing when piped or
// --quiet.
func (w *verifyWatch) status(obs vitals.Observation, deadline time.Time) {
	d := w.o.deps
	if !d.IO.ErrTTY || d.Global.Quiet {
		return
	}
	deleted := "n/a"
	if obs.Deleted != nil {
		deleted = fmt.Sprintf("%.0f/%d", *obs.Deleted, w.rec.Moved)
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
