package changes

import (
	"fmt"
	"strings"
	"time"
)

// ChartRows is the number of time slices a chart divides the range into:
// as many as the report's arrival charts.
const ChartRows = 12

// barWidth is half the report's bar, since two stand side by side.
const barWidth = 20

// Chart draws the DLQ's arrivals beside the first consumer's errors, with
// its throttles, Duration p99 and concurrency, one row per slice of the
// range, so that a reader sees whether errors start with the arrivals.
// The lines are plain text: cmd prints them, the report fences them.
func (r *Result) Chart() []string {
	lines, _ := r.chart(false)
	return lines
}

// TerseChart is Chart without the rows where every series is 0 — no
// arrival, error, throttle, p99 or concurrency — and the count of the rows
// it left out: a terminal shows the slices where something happened, and
// says once how many were flat.
func (r *Result) TerseChart() (lines []string, flat int) {
	return r.chart(true)
}

func (r *Result) chart(dropFlat bool) ([]string, int) {
	from, to := r.Range.From, r.Range.To
	span := to.Sub(from)
	if span <= 0 {
		return nil, 0
	}
	width := (span + ChartRows - 1) / ChartRows
	b := r.binned(from, width)
	arr, errs, thr, p99, conc := b.arrivals, b.errors, b.throttles, b.p99, b.concurrency
	name := "(no consumer function known)"
	if len(r.Consumers) > 0 {
		name = r.Consumers[0].Function + " errors"
	}
	p99Text := num
	if len(r.Consumers) == 0 || r.Consumers[0].Series.DurationUnread != "" {
		p99Text = func(float64) string { return "-" }
	}
	layout := "01-02 15:04"
	if span <= 24*time.Hour {
		layout = "15:04:05"
	}
	lines := []string{fmt.Sprintf("%-*s  %-*s  %-*s  %9s  %8s  %11s", len(layout)+4, "UTC", barWidth+7, "DLQ arrivals (sampled)", barWidth+7, name, "throttles", "p99 ms", "concurrency")}
	pa, pe := peak(arr), peak(errs)
	flat := 0
	for i := range ChartRows {
		if dropFlat && arr[i] == 0 && errs[i] == 0 && thr[i] == 0 && p99[i] == 0 && conc[i] == 0 {
			flat++
			continue
		}
		t := from.Add(time.Duration(i) * width).UTC().Format(layout)
		lines = append(lines, fmt.Sprintf("%s UTC  %s %6s  %s %6s  %9s  %8s  %11s", t,
			bar(arr[i], pa), num(arr[i]), bar(errs[i], pe), num(errs[i]), num(thr[i]), p99Text(p99[i]), num(conc[i])))
	}
	lines = append(lines, fmt.Sprintf("%d rows of %s from %s", ChartRows, width.Round(time.Second), from.UTC().Format(time.RFC3339)))
	return lines, flat
}

// chartBins are a chart's rows: the DLQ's sampled arrivals and the first
// consumer's errors and throttles summed per row, its p99 duration and
// concurrency at their row's peak.
type chartBins struct {
	arrivals, errors, throttles, p99, concurrency []float64
}

// binned puts the arrivals and the first consumer's series in ChartRows
// rows of width from from.
func (r *Result) binned(from time.Time, width time.Duration) chartBins {
	b := chartBins{make([]float64, ChartRows), make([]float64, ChartRows), make([]float64, ChartRows), make([]float64, ChartRows), make([]float64, ChartRows)}
	bin := func(t time.Time) int { return min(max(int(t.Sub(from)/width), 0), ChartRows-1) }
	for _, p := range r.Arrivals {
		b.arrivals[bin(p.Time)] += p.Value
	}
	if len(r.Consumers) == 0 {
		return b
	}
	c := r.Consumers[0]
	for _, p := range c.Series.Errors {
		b.errors[bin(p.Time)] += p.Value
	}
	for _, p := range c.Series.Throttles {
		b.throttles[bin(p.Time)] += p.Value
	}
	for _, p := range c.Series.DurationP99 {
		b.p99[bin(p.Time)] = max(b.p99[bin(p.Time)], p.Value)
	}
	for _, p := range c.Series.Concurrency {
		b.concurrency[bin(p.Time)] = max(b.concurrency[bin(p.Time)], p.Value)
	}
	return b
}

func peak(vs []float64) float64 {
	p := 0.0
	for _, v := range vs {
		p = max(p, v)
	}
	return p
}

func bar(v, peak float64) string {
	n := 0
	if peak > 0 && v > 0 {
		n = max(1, int(v*barWidth/peak+0.5))
	}
	return strings.Repeat("#", n) + strings.Repeat(" ", barWidth-n)
}

func num(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}
