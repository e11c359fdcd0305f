package browse

import (
	"fmt"
	"strconv"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/plural"
)

// dlqLines draw contain's verdict and classify's groups for one DLQ.
func (m *Model) dlqLines(w int) ([]string, int) {
	d := m.dlq
	out := m.containLines()
	out = append(out, "")
	switch {
	case d.cls.busy:
		return append(out, "classify: peeking at a sample (VisibilityTimeout 5, nothing deleted)…"), 0
	case d.cls.err != nil:
		return append(out, m.st.bad("classify: "+safe(d.cls.err.Error())), "r reads again"), 0
	case d.cls.got == nil || d.cls.got.Result == nil:
		return out, 0
	}
	c := d.cls.got.Result
	sampled := plural.Of(c.Messages, "message sampled", "messages sampled")
	if c.Look != nil && c.Look.InDLQ > 0 {
		sampled = classify.EvidenceOf(c).SampleText() // "100 of 340 sampled"
	}
	out = append(out, fmt.Sprintf("classify: %s · %s · confidence %.0f%% · incident %s", m.verdict(string(c.Verdict)),
		sampled, c.Confidence*100, safe(d.cls.got.Incident)))
	widths := []int{4, 10, 6, 8, 22}
	if w >= 120 {
		widths = []int{4, 10, 6, 8, 48}
	}
	out = append(out, "", m.st.head("  "+m.row(widths, "ID", "VERDICT", "COUNT", "PATTERN", "FINGERPRINT", "FIRST EVIDENCE")))
	groups := m.groupList()
	if len(groups) == 0 {
		out = append(out, "  (no group"+m.filterNote()+")")
	}
	focus := len(out)
	cur := clamp(d.cursor, len(groups))
	for i, g := range groups {
		if i == cur {
			focus = len(out)
		}
		line := m.row(widths, safe(g.ID), m.verdict(string(g.Verdict)), strconv.Itoa(g.Count), safe(g.Pattern),
			safe(g.Fingerprint), safe(firstLine(g.Evidence)))
		out = append(out, m.mark(line, i == cur))
	}
	if g := m.currentGroup(); g != nil {
		out = append(out, "", "next: "+safe(g.Action))
	}
	out = append(out, m.st.dim("enter: its messages · R: redrive this group · e: export · c: command line"))
	return out, focus
}

// containLines are contain's verdict, trend and expiry.
func (m *Model) containLines() []string {
	d := m.dlq
	switch {
	case d.contain.busy:
		return []string{"contain: reading the trend, the source and its consumers…"}
	case d.contain.err != nil:
		return []string{m.st.bad("contain: " + safe(d.contain.err.Error()))}
	case d.contain.got == nil:
		return nil
	}
	r := d.contain.got
	out := []string{fmt.Sprintf("contain: %s · %d visible, %d in flight · trend %s (%g → %g, %+.1f/min, %s)",
		m.verdict(string(r.Verdict)), r.DLQ.Visible, r.DLQ.InFlight, safe(r.DLQ.Direction), r.DLQ.From, r.DLQ.To, r.DLQ.PerMinute, safe(r.DLQ.Source))}
	for _, why := range r.Reasons {
		out = append(out, "  "+safe(why))
	}
	if r.Source != nil {
		out = append(out, fmt.Sprintf("source: %s · %d visible, %d in flight", safe(r.Source.Queue), r.Source.Visible, r.Source.InFlight))
	}
	for _, mp := range r.Mappings {
		out = append(out, fmt.Sprintf("consumer: %s (%s)", safe(mp.Function), safe(mp.State)))
	}
	if r.OldestExpiry != nil {
		out = append(out, "expiry: "+safe(r.OldestExpiry.Countdown(m.opts.Now())))
	} else {
		out = append(out, "expiry: unknown (no age of the oldest message)")
	}
	return out
}

// verdict colours a verdict: red for what needs the operator.
func (m *Model) verdict(v string) string {
	switch v {
	case string(contain.Alive), "poison":
		return m.st.bad(safe(v))
	case "transient", "data":
		return m.st.warn(safe(v))
	}
	return safe(v)
}
