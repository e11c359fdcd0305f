package changes

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
)

// Alarms keeps the state changes into ALARM, each with its metric (when
// the alarm still exists) and whether it watches this queue or its
// consumers (own) or a dependency.
func Alarms(changes []cwapi.StateChange, metrics map[string]cwapi.AlarmMetric, rel Resources, w Range) []Alarm {
	first := w.From
	if w.FirstFailure != nil {
		first = *w.FirstFailure
	}
	out := []Alarm{}
	for _, c := range changes {
		if c.To != "ALARM" || c.Time.Before(w.From) || c.Time.After(w.To) {
			continue
		}
		a := Alarm{Name: c.Alarm, Time: c.Time, Reason: c.Reason, Offset: int64(c.Time.Sub(first) / time.Second)}
		if m, ok := metrics[c.Alarm]; ok {
			a.Namespace, a.Metric, a.Dimensions = m.Namespace, m.Metric, m.Dimensions
		}
		a.Own = own(a, rel)
		if !a.Own {
			a.Dependency = dependency(a)
		}
		out = append(out, a)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if di, dj := abs(out[i].Offset), abs(out[j].Offset); di != dj {
			return di < dj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// own tells an alarm on this queue or its consumers: their alarms firing
// is the incident itself, not its cause.
func own(a Alarm, rel Resources) bool {
	for _, v := range a.Dimensions {
		if slices.Contains(rel.Queues, v) || slices.Contains(rel.Functions, v) {
			return true
		}
	}
	for _, n := range append(append([]string{}, rel.Queues...), rel.Functions...) {
		if n != "" && a.Dimensions == nil && strings.Contains(a.Name, n) {
			return true
		}
	}
	return false
}

// dependency names what a dependency's alarm watches: its dimensions'
// values (ApiName=payment-gateway → payment-gateway), else the alarm.
func dependency(a Alarm) string {
	var vals []string
	for _, k := range slices.Sorted(maps.Keys(a.Dimensions)) {
		vals = append(vals, a.Dimensions[k])
	}
	if len(vals) > 0 {
		return strings.Join(vals, "/")
	}
	return a.Name
}

// AlarmSentence says a dependency's alarm in one line.
func AlarmSentence(a Alarm) string {
	metric := ""
	if a.Metric != "" {
		metric = fmt.Sprintf(" (%s %s)", a.Namespace, a.Metric)
	}
	return fmt.Sprintf("alarm %s on %s%s went to ALARM at %s UTC, %s: a dependency was failing — evidence for transient",
		a.Name, a.Dependency, metric, a.Time.UTC().Format("15:04"), relative(a.Offset, "the first failure"))
}
