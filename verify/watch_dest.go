package verify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// readBaselines reads, once before the first look, each destination's own
// traffic over BaselineHistory before the move's first minute. A
// destination CloudWatch shows no traffic for is quiet, judged as before.
func (w *Watch) readBaselines(ctx context.Context) {
	if w.Rec.Target != "" || w.Rec.StartedAt.IsZero() {
		return
	}
	first := w.Rec.StartedAt.UTC().Truncate(time.Minute)
	for _, q := range w.queues() {
		var sent, deleted, age []cwapi.Point
		for _, m := range []struct {
			metric, stat string
			dst          *[]cwapi.Point
		}{{cwapi.MetricMessagesSent, "Sum", &sent}, {cwapi.MetricMessagesDeleted, "Sum", &deleted}, {cwapi.MetricAgeOfOldest, "Maximum", &age}} {
			points, err := w.metric(ctx, q.Name, m.metric, m.stat, first.Add(-BaselineHistory), first)
			if err != nil {
				return
			}
			*m.dst = points
		}
		w.baselines = append(w.baselines, BaselineOf(sent, deleted, age))
	}
}

// observeDest reads one destination's depth, when a failing redriven
// message would be back in the DLQ at the latest, and its metrics: a live
// destination's counts since the move and age of oldest, a quiet one's counts over the
// move.
func (w *Watch) observeDest(ctx context.Context, q *sqsapi.Queue, base *Traffic) (DestObservation, error) {
	d := DestObservation{Queue: q.Name, At: w.Now(), Baseline: base}
	if err := sqsapi.Refresh(ctx, w.SQS, q); err != nil {
		return d, fmt.Errorf("verify %s: %w", q.Name, err)
	}
	d.Depth = q.Depth
	d.FIFO = q.FIFO
	d.FailuresTo = "none"
	if q.RedrivePolicy != nil {
		d.FailuresTo = q.RedrivePolicy.DeadLetterTargetArn
	}
	d.ReturnsHere = w.DLQ.ARN != "" && d.FailuresTo == w.DLQ.ARN
	// A message failing from its first receive is moved to the DLQ by the
	// receive after its maxReceiveCount-th visibility timeout: one more
	// timeout is the margin for that receive. Without a redrive policy a
	// failing message never returns (it stays in the age of oldest).
	receives := 1
	if q.RedrivePolicy != nil && q.RedrivePolicy.MaxReceiveCount > 0 {
		receives = q.RedrivePolicy.MaxReceiveCount + 1
	}
	// A redriven message is first delivered after the queue's
	// DelaySeconds (the mover sets no per-message delay, so the queue's
	// applies to each): until then no consumer has seen it, and verify
	// must not pass on its absence from the DLQ.
	d.Delay = q.Delay()
	d.ReturnsBy = w.Rec.moveEnd().Add(d.Delay + q.Visibility*time.Duration(receives))
	if w.noMetric || w.Rec.StartedAt.IsZero() {
		return d, nil
	}
	if base.Live() {
		w.liveMetrics(ctx, q.Name, &d)
	} else {
		w.quietMetrics(ctx, q.Name, &d)
	}
	return d, nil
}

// quietMetrics reads a quiet destination's NumberOfMessagesSent over the
// move and NumberOfMessagesDeleted since it began, counting nothing from
// before it (MoveMetric); each is nil when CloudWatch has no data or
// cannot be read.
func (w *Watch) quietMetrics(ctx context.Context, queue string, d *DestObservation) {
	start := w.Rec.StartedAt.Truncate(time.Minute).Add(-time.Minute)
	end := w.Now().Add(time.Minute)
	for _, m := range []struct {
		name string
		dst  **float64
		end  time.Time
	}{{cwapi.MetricMessagesSent, &d.Sent, w.Rec.EndedAt}, {cwapi.MetricMessagesDeleted, &d.Deleted, end}} {
		until := end
		if !m.end.IsZero() {
			// Sends after the move are someone else's.
			until = m.end.Truncate(time.Minute).Add(time.Minute)
		}
		points, err := w.metric(ctx, queue, m.name, "Sum", start, until)
		if err != nil {
			return
		}
		var partial bool
		*m.dst, partial = MoveMetric(points, w.Rec.StartedAt)
		d.Partial = d.Partial || partial
	}
}

// liveMetrics reads a live destination's sums over whole minutes from the
// move's first minute — sends up to the move's end, deletions up to now —
// and its latest age of oldest message since the move ended.
func (w *Watch) liveMetrics(ctx context.Context, queue string, d *DestObservation) {
	now := w.Now()
	start, end := w.Rec.StartedAt.UTC().Truncate(time.Minute), w.Rec.moveEnd().UTC()
	sentUntil := end.Truncate(time.Minute).Add(time.Minute)
	for _, m := range []struct {
		name  string
		dst   **MinuteSum
		until time.Time
	}{{cwapi.MetricMessagesSent, &d.SentSinceMove, sentUntil}, {cwapi.MetricMessagesDeleted, &d.DeletedSinceMove, now.Add(time.Minute)}} {
		points, err := w.metric(ctx, queue, m.name, "Sum", start, m.until)
		if err != nil {
			return
		}
		*m.dst = MinuteSumOf(points, start, m.until, now)
	}
	points, err := w.metric(ctx, queue, cwapi.MetricAgeOfOldest, "Maximum", end.Truncate(time.Minute), now.Add(time.Minute))
	if err != nil || len(points) == 0 {
		return
	}
	// The point is the Maximum over its minute, sampled anywhere in it:
	// dated at the minute's start, a redriven message still there at any
	// sample is at least as old as the time since the last send (the end
	// of the minute would let one sampled early in it pass).
	p := points[len(points)-1]
	d.AgeOfOldest, d.AgeAt = &p.Value, p.Time
}

// metric reads one-minute points of a queue's metric; after a failure
// (said once) verify judges without CloudWatch.
func (w *Watch) metric(ctx context.Context, queue, metric, stat string, start, end time.Time) ([]cwapi.Point, error) {
	points, err := cwapi.QueueMetric(ctx, w.CW, cwapi.MetricQuery{Queue: queue, Metric: metric, Stat: stat, Start: start, End: end, Period: time.Minute})
	if err != nil && !errors.Is(err, context.Canceled) && !w.noMetric {
		w.Warn("CloudWatch unavailable (%v): %s and %s not judged", err, cwapi.MetricMessagesSent, cwapi.MetricMessagesDeleted)
		w.noMetric = true
	}
	return points, err
}
