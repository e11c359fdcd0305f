package cwapi

import (
	"fmt"
	"math"
	"time"
)

// Sigmas is how many standard deviations above its mean a queue's own
// traffic may reach by chance in the bound a redriven count must clear
// (Spread.AtMost): three, the one-sided 99.9 % of a normal count.
const Sigmas = 3

// Spread is a queue's own per-minute count (one-minute Sum points of a
// metric such as NumberOfMessagesDeleted) over a window before a move:
// its mean and standard deviation per minute, a minute without a point
// counted as zero (SQS publishes no point for a minute without traffic).
// It judges nothing: verify and the canary compare a count against
// AtMost.
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
// independent). A count is evidence of n redriven messages only when it is
// at least AtMost + n.
func (s Spread) AtMost(minutes float64) float64 {
	if minutes <= 0 {
		return 0
	}
	return s.Mean*minutes + Sigmas*s.sigma()*math.Sqrt(minutes)
}

// Words says the spread and the bound over minutes, for a reason line.
func (s Spread) Words(minutes float64) string {
	return fmt.Sprintf("its own %.1f/min ± %.1f before the move reach at most %.0f over %.1f min by chance (mean + %dσ)", s.Mean, s.sigma(), s.AtMost(minutes), minutes, Sigmas)
}
