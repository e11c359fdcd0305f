package verify

import (
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
)

// BaselineHistory is how much of a destination's history before the move
// verify reads to learn its own traffic: long enough to average out a
// burst, short enough that CloudWatch's one-minute points are still kept
// (15 days) and the read stays one page.
const BaselineHistory = 15 * time.Minute

// Traffic is a destination's own traffic before the move, as CloudWatch
// recorded it over BaselineHistory: a queue with any is live, and is judged
// against it instead of being required to drain.
type Traffic struct {
	// Minutes is how many minutes of BaselineHistory CloudWatch has points for.
	Minutes          int     `json:"minutes"`
	SentPerMinute    float64 `json:"sent_per_minute"`
	DeletedPerMinute float64 `json:"deleted_per_minute"`
	// SentSpread and DeletedSpread are the per-minute means and standard
	// deviations the live checks' bound is made of (cwapi.Spread.AtMost):
	// a redriven count must clear what the queue's own traffic reaches by
	// chance, not a fixed share of its rate. Zero in a verify.json written
	// before them.
	SentSpread    cwapi.Spread `json:"sent_spread"`
	DeletedSpread cwapi.Spread `json:"deleted_spread"`
	// AgeOfOldest is the mean of the per-minute maxima of
	// ApproximateAgeOfOldestMessage, in seconds; nil: no data.
	AgeOfOldest *float64 `json:"age_of_oldest_seconds"`
}

// Live tells whether the destination had traffic of its own before the
// move. A queue nobody sends to is quiet, and must drain.
func (t *Traffic) Live() bool {
	return t != nil && (t.SentPerMinute > 0 || t.DeletedPerMinute > 0)
}

// BaselineOf reads the points of BaselineHistory before the move's first
// minute: Sum of sends and deletions, Maximum of the age of the oldest.
// nil when CloudWatch has no point at all (a quiet or new queue).
func BaselineOf(sent, deleted, age []cwapi.Point) *Traffic {
	minutes := map[time.Time]bool{}
	var s, d float64
	for _, p := range sent {
		s += p.Value
		minutes[p.Time] = true
	}
	for _, p := range deleted {
		d += p.Value
		minutes[p.Time] = true
	}
	if len(minutes) == 0 {
		return nil
	}
	// A minute with no point is a minute with no traffic: the rate is
	// over the whole history, as the queue's own traffic would spread.
	n := BaselineHistory.Minutes()
	t := &Traffic{Minutes: len(minutes), SentPerMinute: s / n, DeletedPerMinute: d / n,
		SentSpread: cwapi.SpreadOf(sent, BaselineHistory), DeletedSpread: cwapi.SpreadOf(deleted, BaselineHistory)}
	if len(age) > 0 {
		var a float64
		for _, p := range age {
			a += p.Value
		}
		a /= float64(len(age))
		t.AgeOfOldest = &a
	}
	return t
}

// MinuteSum is a sum of one-minute points over whole minutes from the
// move's first minute, and how many minutes of CloudWatch data it covers: up to
// the end of the last point's minute, or now when that minute is still
// running (the queue's own traffic of a running minute is only partly in).
type MinuteSum struct {
	Sum     float64 `json:"sum"`
	Minutes float64 `json:"minutes"`
}

// MinuteSumOf sums points from the minute of from until until (exclusive),
// and covers minutes up to the end of the last point's minute, capped at
// now. nil when there is no point.
func MinuteSumOf(points []cwapi.Point, from, until, now time.Time) *MinuteSum {
	first := from.UTC().Truncate(time.Minute)
	var w MinuteSum
	var last time.Time
	for _, p := range points {
		if p.Time.Before(first) || !p.Time.Before(until) {
			continue
		}
		w.Sum += p.Value
		last = p.Time
	}
	if last.IsZero() {
		return nil
	}
	end := last.Add(time.Minute)
	if now.Before(end) {
		end = now
	}
	w.Minutes = end.Sub(first).Minutes()
	return &w
}

// excess judges a live destination's count since the move against its
// baseline (own.Need): above what its own traffic reaches by chance, and
// every moved message on top of the least it does. A count short of it is
// not a failure — the redriven messages may be among it, hidden by the
// queue's own traffic — it is not proven. The line says the figures
// either way.
func excess(queue, verb, metric string, w *MinuteSum, own cwapi.Spread, moved int) (ok bool, line string) {
	need := own.Need(moved, w.Minutes)
	line = fmt.Sprintf("%s %s %.0f over %.1f min (%s): %s; %d moved: at least %.0f needed",
		queue, verb, w.Sum, w.Minutes, metric, own.Words(w.Minutes), moved, need)
	return w.Sum >= need, line
}

// spreadOr is a baseline's spread, or one made of its rate alone for a
// verify.json written before spreads (σ then √mean).
func spreadOr(s cwapi.Spread, perMinute float64) cwapi.Spread {
	if s.Mean == 0 && s.StdDev == 0 {
		return cwapi.Spread{Mean: perMinute}
	}
	return s
}

// MoveMetric sums a metric's per-minute points over a move that began at
// start, counting nothing from before it: the minute start falls in
// (CloudWatch's finest period for SQS) is counted only when the minute
// before it was quiet (no data or zero), so that its count is the move's;
// partial says it was left out. points are one-minute sums from the minute
// before start on. nil when there is no point at or after start's minute.
func MoveMetric(points []cwapi.Point, start time.Time) (sum *float64, partial bool) {
	first := start.UTC().Truncate(time.Minute)
	aligned := first.Equal(start.UTC())
	quiet := true
	for _, p := range points {
		if p.Time.Equal(first.Add(-time.Minute)) && p.Value > 0 {
			quiet = false
		}
	}
	var total float64
	seen := false
	for _, p := range points {
		switch {
		case p.Time.Before(first):
			continue
		case p.Time.Equal(first) && !aligned && !quiet:
			partial = true
			continue
		}
		total += p.Value
		seen = true
	}
	if !seen && !partial {
		return nil, false
	}
	return &total, partial
}
