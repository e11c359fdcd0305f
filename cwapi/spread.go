package cwapi

import (
	"fmt"
	"math"
	"time"
)

// Sigmas is how many standard deviations from its mean a queue's own
// traffic may stray by chance in the bounds a redriven count is judged by
// (Spread.Need): three, the one-sided 99.9 % of a normal count.
const Sigmas = 3

// Spread is a queue's own per-minute count (one-minute Sum points of a
// metric such as NumberOfMessagesDeleted) over a window before a move:
// its mean and standard deviation per minute, a minute without a point
// counted as zero (SQS publishes no point for a minute without traffic).
// It judges nothing: verify and the canary compare a count against
// Need.
type Spread struct {
	Mean   float64 `json:"mean_per_minute"`
	StdDev float64 `json:"stddev_per_minute"`
}

// SpreadOf is the spread of points, one-minute sums read over window.
func SpreadOf(points []Point, window time.Duration) Spread {
	n := window.Minutes()
	if n <= 0 {
		return Spread{}
	}
	var sum, sq float64
	for _, p := range points {
		sum += p.Value
		sq += p.Value * p.Value
	}
	mean := sum / n
	return Spread{Mean: mean, StdDev: math.Sqrt(max(sq/n-mean*mean, 0))}
}

// sigma is the per-minute deviation the bound uses: the measured one, and
// at least a Poisson count's √mean — a steady synthetic baseline (or one
// CloudWatch averaged) would otherwise claim a precision no queue's
// traffic has.
func (s Spread) sigma() float64 { return max(s.StdDev, math.Sqrt(s.Mean)) }

// AtMost is the most the queue's own traffic reaches by chance over
// minutes: mean × minutes + Sigmas × σ × √minutes (minutes taken as
// independent).
func (s Spread) AtMost(minutes float64) float64 {
	if minutes <= 0 {
		return 0
	}
	return s.Mean*minutes + Sigmas*s.sigma()*math.Sqrt(minutes)
}

// AtLeast is the least the queue's own traffic reaches by chance over
// minutes: mean × minutes − Sigmas × σ × √minutes, not below zero.
func (s Spread) AtLeast(minutes float64) float64 {
	if minutes <= 0 {
		return 0
	}
	return max(s.Mean*minutes-Sigmas*s.sigma()*math.Sqrt(minutes), 0)
}

// Need is the count over minutes that proves moved messages were counted
// on top of the queue's own traffic. Two things: the count is above what
// its own traffic reaches by chance (AtMost: else its own alone explains
// it — a canary of ten on a busy queue is lost in its noise), and it holds
// every moved message on top of the least its own traffic does (AtLeast +
// moved: else only some of them were). A fixed share of the rate proved
// neither: on a busy queue the slack alone exceeded the moved count.
func (s Spread) Need(moved int, minutes float64) float64 {
	return max(s.AtMost(minutes), float64(moved)+s.AtLeast(minutes))
}

// Words says the spread and the bounds over minutes, for a reason line.
func (s Spread) Words(minutes float64) string {
	return fmt.Sprintf("its own %.1f/min ± %.1f before the move reach %.0f–%.0f over %.1f min by chance (mean ± %dσ)",
		s.Mean, s.sigma(), s.AtLeast(minutes), s.AtMost(minutes), minutes, Sigmas)
}
