package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/plural"
)

// chartBins is how many rows an arrival chart has: enough to tell a burst
// (one or two tall rows) from a trickle (rows all alike), few enough to read.
const chartBins = 12

// chartWidth is the longest bar, in characters.
const chartWidth = 40

// groupChart draws the arrivals of the sampled messages that fall in a
// group's window. The sample is what inspect or classify kept, so the chart
// shows the shape, not the full count.
func (inc *Incident) groupChart(g classify.Group) string {
	if c := inc.Classification; len(g.Arrivals) > 0 && c.FirstSent != nil && c.LastSent != nil {
		return histogramChart(g.Arrivals, *c.FirstSent, *c.LastSent)
	}
	if g.FirstSent.IsZero() || g.LastSent.IsZero() {
		return arrivalChart(nil)
	}
	return arrivalChart(inc.sentTimes(g.FirstSent, g.LastSent))
}

// sentTimes returns the samples' SentTimestamps, within [from, to] unless
// both are zero.
func (inc *Incident) sentTimes(from, to time.Time) []time.Time {
	var out []time.Time
	for i := range inc.Samples {
		t, ok := inc.Samples[i].SentTime()
		if !ok {
			continue
		}
		if !from.IsZero() && (t.Before(from.Truncate(time.Second)) || t.After(to.Add(time.Second))) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// arrivalChart draws times as a text histogram in a code block: one row per
// bin, the bin's start time, a bar and the count.
func arrivalChart(times []time.Time) string {
	if len(times) == 0 {
		return "```\n(no sampled SentTimestamp in this window)\n```\n"
	}
	first, last := times[0], times[0]
	for _, t := range times {
		if t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	span := last.Sub(first)
	bins := chartBins
	if span == 0 {
		bins = 1
	}
	width := span/time.Duration(bins) + 1
	counts := make([]int, bins)
	for _, t := range times {
		i := min(int(t.Sub(first)/width), bins-1)
		counts[i]++
	}
	return drawRows(counts, first, width, span, len(times))
}

// histogramChart draws classify's arrival histogram (equal slices of
// [first, last]) merged down to at most chartBins rows.
func histogramChart(cols []int, first, last time.Time) string {
	per := (len(cols) + chartBins - 1) / chartBins
	rows := make([]int, 0, chartBins)
	total := 0
	for i := 0; i < len(cols); i += per {
		n := 0
		for _, c := range cols[i:min(i+per, len(cols))] {
			n += c
		}
		rows = append(rows, n)
		total += n
	}
	span := last.Sub(first)
	if span < time.Duration(len(rows))*time.Second {
		// Rows narrower than a second would all print the same time: one
		// row says it plainly (everything arrived at once).
		return drawRows([]int{total}, first, span, span, total)
	}
	width := span / time.Duration(len(cols)) * time.Duration(per)
	return drawRows(rows, first, width, span, total)
}

func drawRows(counts []int, first time.Time, width, span time.Duration, total int) string {
	peak := 1
	for _, n := range counts {
		peak = max(peak, n)
	}
	layout := "15:04:05"
	if span > 24*time.Hour {
		layout = "01-02 15:04"
	}
	var b strings.Builder
	b.WriteString("```\n")
	for i, n := range counts {
		bar := strings.Repeat("#", (n*chartWidth+peak-1)/peak)
		fmt.Fprintf(&b, "%s UTC |%-*s %d\n", first.Add(time.Duration(i)*width).UTC().Format(layout), chartWidth, bar, n)
	}
	fmt.Fprintf(&b, "%s over %s, %s of %s\n```\n", plural.Of(total, "message"), human(span), plural.Of(len(counts), "row"), human(width))
	return b.String()
}
