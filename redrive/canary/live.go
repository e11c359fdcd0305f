package canary

import (
	"context"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
)

// ownWindow is how much of a destination's history before the canary
// tells whether it is live: verify's BaselineHistory, one page of
// one-minute points.
const ownWindow = 15 * time.Minute

// ownTraffic is a destination's own traffic before the canary, as
// CloudWatch recorded it over ownWindow.
type ownTraffic struct {
	sent          float64
	deletedPerMin float64
	// deleted is the spread of its per-minute deletions: the deletions
	// since the canary are judged by it (cwapi.Spread.Need), as verify
	// judges the move.
	deleted cwapi.Spread
	// seen is what the last look at its metrics showed; noData that
	// CloudWatch had no point since the canary yet.
	seen   string
	noData bool
}

// live tells whether the destination has traffic of its own: its depth
// then says nothing about the canary.
func (t *ownTraffic) live() bool { return t != nil && (t.sent > 0 || t.deletedPerMin > 0) }

// canarySpan is when the canary's sends began and ended.
type canarySpan struct{ start, sent time.Time }

// cw is the CloudWatch client of the canary's checks; nil without one, or
// after a failure (said once): destinations are then judged by depth.
func (ch *Check) cw(ctx context.Context) cwapi.MetricsAPI {
	if ch.cwClient != nil || ch.noCW || ch.CW == nil {
		return ch.cwClient
	}
	c, err := ch.CW(ctx)
	if err != nil {
		ch.cwFailed(err)
		return nil
	}
	ch.cwClient = c
	return c
}

func (ch *Check) cwFailed(err error) {
	if !ch.noCW {
		ch.Warn("canary: CloudWatch unavailable (%v): each destination is judged by its depth, as a queue with no traffic of its own", err)
	}
	ch.noCW, ch.cwClient = true, nil
}

// ownTraffic reads a destination's sends and deletions over ownWindow
// before now; nil when CloudWatch is absent, fails or has no data.
func (ch *Check) ownTraffic(ctx context.Context, queue string) *ownTraffic {
	cw := ch.cw(ctx)
	if cw == nil {
		return nil
	}
	end := ch.now().UTC().Truncate(time.Minute)
	var sums [2]float64
	var deleted []cwapi.Point
	for i, m := range []string{cwapi.MetricMessagesSent, cwapi.MetricMessagesDeleted} {
		points, err := cwapi.QueueMetric(ctx, cw, cwapi.MetricQuery{Queue: queue, Metric: m, Stat: "Sum", Start: end.Add(-ownWindow), End: end, Period: time.Minute})
		if err != nil {
			ch.cwFailed(err)
			return nil
		}
		for _, p := range points {
			sums[i] += p.Value
		}
		deleted = points
	}
	return &ownTraffic{sent: sums[0], deletedPerMin: sums[1] / ownWindow.Minutes(), deleted: cwapi.SpreadOf(deleted, ownWindow)}
}

// liveLeft judges a live destination by its metrics since the canary
// (canaryGone). Without CloudWatch now, or without a point yet, the
// destination is marked noData: at the end of the wait the canary is not
// proven for it (stillText), never taken as consumed.
func (ch *Check) liveLeft(ctx context.Context, c *canaryDest, span canarySpan) {
	c.own.noData = true
	cw := ch.cw(ctx)
	if cw == nil {
		return
	}
	now := ch.now().UTC()
	read := func(metric, stat string, from time.Time) ([]cwapi.Point, bool) {
		points, err := cwapi.QueueMetric(ctx, cw, cwapi.MetricQuery{Queue: c.q.Name, Metric: metric, Stat: stat, Start: from.UTC().Truncate(time.Minute), End: now.Add(time.Minute), Period: time.Minute})
		if err != nil {
			ch.cwFailed(err)
			return nil, false
		}
		return points, true
	}
	ages, ok := read(cwapi.MetricAgeOfOldest, "Maximum", span.sent)
	if !ok {
		return
	}
	deleted, ok := read(cwapi.MetricMessagesDeleted, "Sum", span.start)
	if !ok {
		return
	}
	c.left, c.own.seen, c.own.noData = canaryGone(ages, deleted, span, now, c.moved, c.own.deleted, c.q.Delay())
}

// canaryGone judges a live destination's metrics since the canary. The
// canary has left when a minute that began after its last send was
// delivered (the send + the queue's DelaySeconds, delay) shows an age of
// oldest message younger than that send (had a canary message been there
// at the minute's start, the age would be at least as old; while it is
// still delayed SQS does not say that its age counts, and the queue's own
// young messages would read as the canary gone), or when
// the deletions since the canary's first minute are above what its own
// traffic reaches by chance and hold the canary on top of the least it
// does (own.Need: mean ± 3σ, never a share of its rate — on a busy queue
// that slack alone exceeded a canary of ten). seen says the figures.
func canaryGone(ages, deleted []cwapi.Point, span canarySpan, now time.Time, moved int, own cwapi.Spread, delay time.Duration) (left bool, seen string, noData bool) {
	noData = true
	for _, p := range ages {
		if !p.Time.After(span.sent.Add(delay)) {
			continue
		}
		since := p.Time.Sub(span.sent).Seconds()
		if p.Value < since {
			return true, "", false
		}
		noData = false
		seen = fmt.Sprintf("%s %.0fs at %s, not younger than the canary's %.0fs", cwapi.MetricAgeOfOldest, p.Value, p.Time.Format("15:04"), since)
	}
	first := span.start.UTC().Truncate(time.Minute)
	var sum float64
	var last time.Time
	for _, p := range deleted {
		if !p.Time.Before(first) {
			sum, last = sum+p.Value, p.Time
		}
	}
	if last.IsZero() {
		return false, seen, noData
	}
	end := last.Add(time.Minute)
	if now.Before(end) {
		end = now
	}
	minutes := end.Sub(first).Minutes()
	need := own.Need(moved, minutes)
	if sum >= need {
		return true, "", false
	}
	if seen != "" {
		seen += "; "
	}
	seen += fmt.Sprintf("%s %.0f over %.1f min, %.0f needed (%s; %d moved)", cwapi.MetricMessagesDeleted, sum, minutes, need, own.Words(minutes), moved)
	return false, seen, false
}
