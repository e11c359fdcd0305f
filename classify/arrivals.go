package classify

import "time"

// histBuckets is the fixed size of a group's arrival histogram. The bucket
// width starts at one second and doubles whenever the times seen no longer
// fit, so a group costs the same memory for ten messages or ten million; over
// three days a bucket is under nine minutes wide.
const histBuckets = 512

// Arrival patterns of a group.
const (
	PatternSingle  = "single"  // one message: no pattern
	PatternBurst   = "burst"   // most arrived within Thresholds.BurstWindow
	PatternTrickle = "trickle" // spread over at least Thresholds.TrickleSpan
	PatternSpread  = "spread"  // neither: hours, but not a clear burst
)

// arrivals is a histogram of SentTimestamps (Unix milliseconds).
type arrivals struct {
	n           int
	first, last int64
	width       int64 // milliseconds per bucket
	base        int64 // bucket 0 starts at base*width
	counts      [histBuckets]int32
}

func (a *arrivals) add(ms int64) {
	if a.n == 0 {
		a.first, a.last, a.width = ms, ms, 1000
		a.base = floorDiv(ms, a.width)
	}
	a.n++
	a.first, a.last = min(a.first, ms), max(a.last, ms)
	idx := floorDiv(ms, a.width) - a.base
	if idx < 0 || idx >= histBuckets {
		a.rebinTo(a.width)
		idx = floorDiv(ms, a.width) - a.base
	}
	a.counts[idx]++
}

// merge adds o's arrivals to a's (a group inferred into another). Both
// widths are a second times a power of two, so each of o's buckets falls
// whole into one of a's once a is at least as wide.
func (a *arrivals) merge(o *arrivals) {
	switch {
	case o.n == 0:
		return
	case a.n == 0:
		*a = *o
		return
	}
	a.first, a.last = min(a.first, o.first), max(a.last, o.last)
	a.rebinTo(max(a.width, o.width))
	for i, c := range o.counts {
		if c != 0 {
			a.counts[floorDiv((o.base+int64(i))*o.width, a.width)-a.base] += c
		}
	}
	a.n += o.n
}

// rebinTo widens the buckets to at least w (doubling it) and shifts them
// so that [first, last] fits. Widths are the first width times a power of
// two, so every old bucket falls whole into one new bucket.
func (a *arrivals) rebinTo(w int64) {
	for floorDiv(a.last, w)-floorDiv(a.first, w) >= histBuckets {
		w *= 2
	}
	old, oldBase, oldWidth := a.counts, a.base, a.width
	a.counts = [histBuckets]int32{}
	a.width, a.base = w, floorDiv(a.first, w)
	for i, c := range old {
		if c != 0 {
			a.counts[floorDiv((oldBase+int64(i))*oldWidth, w)-a.base] += c
		}
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// span is the time from the first send to the last.
func (a *arrivals) span() time.Duration {
	return time.Duration(a.last-a.first) * time.Millisecond
}

// densest returns the shortest window (to the histogram's resolution, and
// never longer than the span) that holds at least share of the messages.
func (a *arrivals) densest(share float64) time.Duration {
	need := int32(share*float64(a.n) + 0.999999)
	best := histBuckets
	var sum int32
	lo := 0
	for hi := 0; hi < histBuckets; hi++ {
		sum += a.counts[hi]
		for sum-a.counts[lo] >= need && lo < hi {
			sum -= a.counts[lo]
			lo++
		}
		if sum >= need && hi-lo+1 < best {
			best = hi - lo + 1
		}
	}
	return min(time.Duration(int64(best)*a.width)*time.Millisecond, a.span())
}

// pattern names the arrival pattern under th.
func (a *arrivals) pattern(th Thresholds) string {
	switch {
	case a.n <= 1:
		return PatternSingle
	case a.span() <= th.BurstWindow.Duration, a.densest(th.BurstShare) <= th.BurstWindow.Duration:
		return PatternBurst
	case a.span() >= th.TrickleSpan.Duration:
		return PatternTrickle
	}
	return PatternSpread
}

// chart spreads the histogram over cols columns covering [from, to], the
// whole DLQ's first and last send, so that groups line up on one time axis.
func (a *arrivals) chart(from, to int64, cols int) []int {
	out := make([]int, cols)
	span := to - from + 1
	for i, c := range a.counts {
		if c == 0 {
			continue
		}
		mid := (a.base+int64(i))*a.width + a.width/2
		mid = min(max(mid, a.first), a.last)
		col := int((mid - from) * int64(cols) / span)
		out[min(max(col, 0), cols-1)] += int(c)
	}
	return out
}
