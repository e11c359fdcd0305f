// Package contain decides step 1 of the runbook: is the problem still alive?
// It reads the DLQ's depth trend and the source's age of oldest message
// (CloudWatch, else the queue's own counters) and judges them; Result is
// contain's --output json and contain.json.
package contain

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Verdict is contain's conclusion: the word the event, contain.json and the
// report record.
type Verdict string

// Verdicts of contain.
const (
	Alive    Verdict = "alive"
	NotAlive Verdict = "not_alive"
)

// VerdictOf is the verdict of alive.
func VerdictOf(alive bool) Verdict {
	if alive {
		return Alive
	}
	return NotAlive
}

// Say is the verdict with what it means for the operator, in plain words.
// A verdict it does not know (a contain.json of an older mfdlq, which held
// the sentence itself) is said as it is.
func (v Verdict) Say() string {
	switch v {
	case Alive:
		return "alive — stop the bleeding; the redrive can wait"
	case NotAlive:
		return "not alive — diagnose without rushing"
	}
	return string(v)
}

// Result is contain's result: its --output json and contain.json.
type Result struct {
	Alive        bool                     `json:"alive"`
	Verdict      Verdict                  `json:"verdict"`
	Reasons      []string                 `json:"reasons"`
	DLQ          DLQVitals                `json:"dlq"`
	Source       *SourceVitals            `json:"source"`
	OtherSources []string                 `json:"other_sources"`
	Mappings     []lambdaapi.Mapping      `json:"mappings"`
	Change       *lambdaapi.MappingChange `json:"change"`
	// OldestExpiry is when the DLQ's oldest message expires (nil: unknown).
	OldestExpiry *sqsapi.Expiry `json:"oldest_expiry"`
}

// Reader reads a queue's vital signs: CloudWatch first, the queue's own
// counters when CloudWatch has nothing.
type Reader struct {
	CW  cwapi.MetricsAPI
	SQS sqsapi.Client
	Now func() time.Time
	// SampleEvery and Samples shape the fallback: Samples reads of the
	// queue's attributes, SampleEvery apart.
	SampleEvery time.Duration
	Samples     int
	// Warn receives what the reader could not use, for stderr.
	Warn func(format string, args ...any)
}

// DLQVitals is the DLQ's part of contain's report.
type DLQVitals struct {
	Queue    string `json:"queue"`
	Visible  int64  `json:"visible"`
	InFlight int64  `json:"in_flight"`
	Trend
	Window string `json:"window"`
}

// SourceVitals is the source queue's part of contain's report.
type SourceVitals struct {
	Queue       string   `json:"queue"`
	Visible     int64    `json:"visible"`
	InFlight    int64    `json:"in_flight"`
	AgeOfOldest *float64 `json:"age_of_oldest_seconds"`
	NormalAge   *float64 `json:"normal_age_of_oldest_seconds"`
	AgeElevated bool     `json:"age_elevated"`
}

// Counted says what a DLQ trend counts: every message the queue holds.
// Visible messages alone read a peek (inspect, classify, verify hide what
// they look at for a few seconds) as a change: 40 hidden by a peek made a
// stable DLQ of 50 look like it grew from 30.
const Counted = "visible + in flight + delayed"

// depthMetrics are the CloudWatch metrics whose sum is a queue's depth.
var depthMetrics = []string{cwapi.MetricVisible, cwapi.MetricNotVisible, cwapi.MetricDelayed}

// DepthTrend is the trend of every message q holds (visible, in flight and
// delayed) over window: from CloudWatch's three Approximate metrics summed
// per point when it has two points or more, else from sampling the queue's
// attributes.
func (r Reader) DepthTrend(ctx context.Context, q *sqsapi.Queue, window time.Duration) (Trend, error) {
	now := r.Now()
	if r.CW != nil {
		points, err := r.depthSeries(ctx, q, now, window)
		if err == nil && len(points) >= 2 {
			t := TrendOf(points, FromCloudWatch)
			t.Counted = Counted
			return t, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return Trend{}, ctx.Err()
			}
			r.warn("CloudWatch unavailable (%v): sampling %s's attributes instead", err, q.Name)
		}
	}
	read := func(ctx context.Context) (float64, error) {
		if err := sqsapi.Refresh(ctx, r.SQS, q); err != nil {
			return 0, fmt.Errorf("read depth of %s: %w", q.Name, err)
		}
		return float64(q.Depth.Total()), nil
	}
	points, err := Sample(ctx, max(r.Samples, 2), r.SampleEvery, read, r.Now)
	if err != nil {
		return Trend{}, err
	}
	t := TrendOf(points, FromSampling)
	t.Counted = Counted
	return t, nil
}

// depthSeries sums the depth metrics per timestamp; a metric without data
// adds nothing (SQS does not publish a count that stays at zero).
func (r Reader) depthSeries(ctx context.Context, q *sqsapi.Queue, now time.Time, window time.Duration) ([]cwapi.Point, error) {
	sum := map[time.Time]float64{}
	for _, m := range depthMetrics {
		points, err := cwapi.QueueMetric(ctx, r.CW, cwapi.MetricQuery{
			Queue: q.Name, Metric: m, Stat: "Maximum",
			Start: now.Add(-window), End: now, Period: cwapi.PeriodFor(window),
		})
		if err != nil {
			return nil, err
		}
		for _, p := range points {
			// The visible series decides the timestamps; the others add
			// to its points.
			if _, ok := sum[p.Time]; ok || m == cwapi.MetricVisible {
				sum[p.Time] += p.Value
			}
		}
	}
	out := make([]cwapi.Point, 0, len(sum))
	for t, v := range sum {
		out = append(out, cwapi.Point{Time: t, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out, nil
}

// SourceAge reads ApproximateAgeOfOldestMessage, which only CloudWatch has:
// the latest point within window and, as the queue's recent normal, the
// median over baseline before the window. Either is nil when CloudWatch has
// no data.
func (r Reader) SourceAge(ctx context.Context, q *sqsapi.Queue, window, baseline time.Duration) (age, normal *float64, err error) {
	if r.CW == nil {
		return nil, nil, nil
	}
	now := r.Now()
	recent, err := cwapi.QueueMetric(ctx, r.CW, cwapi.MetricQuery{
		Queue: q.Name, Metric: cwapi.MetricAgeOfOldest, Stat: "Maximum",
		Start: now.Add(-window), End: now, Period: cwapi.PeriodFor(window),
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		r.warn("CloudWatch unavailable (%v): the age of %s's oldest message is unknown", err, q.Name)
		return nil, nil, nil
	}
	if len(recent) > 0 {
		age = ptr(recent[len(recent)-1].Value)
	}
	before, err := cwapi.QueueMetric(ctx, r.CW, cwapi.MetricQuery{
		Queue: q.Name, Metric: cwapi.MetricAgeOfOldest, Stat: "Maximum",
		Start: now.Add(-window - baseline), End: now.Add(-window), Period: cwapi.PeriodFor(baseline),
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		return age, nil, nil
	}
	if m, ok := Median(before); ok {
		normal = ptr(m)
	}
	return age, normal, err
}

func (r Reader) warn(format string, args ...any) {
	if r.Warn != nil {
		r.Warn(format, args...)
	}
}

func ptr(f float64) *float64 { return &f }

// AgeElevated tells whether the source's oldest message is well above its
// normal: at least twice it and a minute more. Without a normal, an age of
// five minutes or more counts as elevated.
func AgeElevated(age, normal *float64) bool {
	switch {
	case age == nil:
		return false
	case normal == nil:
		return *age >= 300
	}
	return *age >= math.Max(2**normal, *normal+60)
}

// Judge is contain's verdict: the problem is alive while the DLQ grows, its
// trend cannot be read, or the source's oldest message is well above
// normal; otherwise it is not. The reasons say why, with the numbers.
func Judge(dlq DLQVitals, src *SourceVitals) (alive bool, reasons []string) {
	switch dlq.Direction {
	case Growing:
		alive = true
		reasons = append(reasons, fmt.Sprintf("%s grew from %.0f to %.0f messages, %s (%+.2f/min, %s)", dlq.Queue, dlq.From, dlq.To, counted(dlq.Trend), dlq.PerMinute, dlq.Source))
	case Unknown:
		alive = true
		reasons = append(reasons, fmt.Sprintf("%s's trend cannot be read: treat it as alive", dlq.Queue))
	case Draining:
		reasons = append(reasons, fmt.Sprintf("%s is draining: %.0f → %.0f messages, %s (%s)", dlq.Queue, dlq.From, dlq.To, counted(dlq.Trend), dlq.Source))
	default:
		reasons = append(reasons, fmt.Sprintf("%s is stable at %.0f messages, %s (%s)", dlq.Queue, dlq.To, counted(dlq.Trend), dlq.Source))
	}
	if src == nil {
		return alive, reasons
	}
	switch {
	case src.AgeElevated:
		alive = true
		reasons = append(reasons, fmt.Sprintf("%s's oldest message is %.0fs old, above its normal (%s)", src.Queue, *src.AgeOfOldest, normalText(src.NormalAge)))
	case src.AgeOfOldest != nil:
		reasons = append(reasons, fmt.Sprintf("%s's oldest message is %.0fs old (normal %s)", src.Queue, *src.AgeOfOldest, normalText(src.NormalAge)))
	default:
		reasons = append(reasons, fmt.Sprintf("%s's age of oldest message: no CloudWatch data", src.Queue))
	}
	return alive, reasons
}

// counted says what a trend counted: visible only for one built before
// the trend counted every message.
func counted(t Trend) string {
	if t.Counted == "" {
		return "visible"
	}
	return t.Counted
}

func normalText(n *float64) string {
	if n == nil {
		return "unknown"
	}
	return fmt.Sprintf("%.0fs", *n)
}
