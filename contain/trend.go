package contain

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
)

// Trend directions.
const (
	Growing  = "growing"
	Stable   = "stable"
	Draining = "draining"
	Unknown  = "unknown"
)

// Trend sources: where the numbers came from.
const (
	FromCloudWatch = "cloudwatch"
	FromSampling   = "sampled"
)

// Trend is a queue depth's direction over a span, with the numbers behind it.
type Trend struct {
	Direction string    `json:"trend"`
	From      float64   `json:"from"`
	To        float64   `json:"to"`
	Since     time.Time `json:"since"`
	Until     time.Time `json:"until"`
	PerMinute float64   `json:"per_minute"`
	Points    int       `json:"points"`
	Source    string    `json:"source"`
	// Counted says which messages the values count (Counted for a DLQ).
	Counted string `json:"counted,omitempty"`
}

// TrendOf reads the direction of a depth series. It compares the first and
// last points: a change of more than 5% of the larger (and at least one
// message) is growth or draining, anything less is stable. With fewer than
// two points the trend is unknown.
func TrendOf(points []cwapi.Point, source string) Trend {
	t := Trend{Direction: Unknown, Points: len(points), Source: source}
	if len(points) < 2 {
		return t
	}
	first, last := points[0], points[len(points)-1]
	t.From, t.To, t.Since, t.Until = first.Value, last.Value, first.Time, last.Time
	delta := last.Value - first.Value
	if mins := last.Time.Sub(first.Time).Minutes(); mins > 0 {
		t.PerMinute = math.Round(delta/mins*100) / 100
	}
	tol := math.Max(1, 0.05*math.Max(first.Value, last.Value))
	switch {
	case delta >= tol:
		t.Direction = Growing
	case -delta >= tol:
		t.Direction = Draining
	default:
		t.Direction = Stable
	}
	return t
}

// Sample reads a depth every interval, n times in all (n >= 2), for when
// CloudWatch has no datapoints: the queue's own counters over a short span.
func Sample(ctx context.Context, n int, interval time.Duration, read func(context.Context) (float64, error), now func() time.Time) ([]cwapi.Point, error) {
	points := make([]cwapi.Point, 0, n)
	for i := 0; i < n; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return points, ctx.Err()
			case <-time.After(interval):
			}
		}
		v, err := read(ctx)
		if err != nil {
			return points, err
		}
		points = append(points, cwapi.Point{Time: now(), Value: v})
	}
	return points, nil
}

// Median returns the median of the points' values; ok is false when there
// are none.
func Median(points []cwapi.Point) (float64, bool) {
	if len(points) == 0 {
		return 0, false
	}
	vals := make([]float64, len(points))
	for i, p := range points {
		vals[i] = p.Value
	}
	sort.Float64s(vals)
	mid := len(vals) / 2
	if len(vals)%2 == 1 {
		return vals[mid], true
	}
	return (vals[mid-1] + vals[mid]) / 2, true
}
