package runbook

import (
	"fmt"
	"strings"
	"time"
)

// chartBins is how many rows an arrival chart has: enough to tell a burst
// (one or two tall rows) from a trickle (rows all alike), few enough to read.
const chartBins = 12

// chartWidth is the longest bar, in characters.
const chartWidth = 40

// sampleChart draws the arrivals of every sampled message.
func (inc *Incident) sampleChart() string {
	return arrivalChart(inc.sentTimes(time.Time{}, time.Time{}))
}

// groupChart draws the arrivals of the sampled messages that fall in a
// group's window. The sample is what inspect or classify kept, so the chart
// shows the shape, not the full count.
func (inc *Incident) groupChart(g ClassificationGroup) string {
	if g.FirstSent == nil || g.LastSent == nil {
		return arrivalChart(nil)
	}
	return arrivalChart(inc.sentTimes(*g.FirstSent, *g.LastSent))
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
	peak := 0
	for _, t := range times {
		i := min(int(t.Sub(first)/width), bins-1)
		counts[i]++
		peak = max(peak, counts[i])
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
	fmt.Fprintf(&b, "%d message(s) over %s, %d row(s) of %s\n```\n", len(times), span.Round(time.Second), bins, width.Round(time.Second))
	return b.String()
}
