package browse

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// fleetLines draw what mfdlq ls computes, in its urgency order.
func (m *Model) fleetLines(w int) ([]string, int) {
	f := m.fleet
	var out []string
	switch {
	case f.got == nil && f.err != nil:
		return []string{m.st.bad("could not list the DLQs: " + safe(f.err.Error())), "", "r reads again"}, 0
	case f.got == nil:
		return []string{"listing every DLQ of the account…"}, 0
	}
	now := m.opts.Now()
	head := fmt.Sprintf("%d DLQs, %d holding messages (%d messages) · read %s", f.got.Summary.DLQs, f.got.Summary.NonEmpty,
		f.got.Summary.Messages, f.got.At.UTC().Format("15:04:05 UTC"))
	if f.busy {
		head += " · reading again…"
	}
	if f.err != nil {
		head += " · " + m.st.bad("last read failed: "+safe(f.err.Error()))
	}
	out = append(out, head)
	for _, wn := range f.got.Warnings {
		out = append(out, m.st.warn("warning: "+safe(wn)))
	}
	for _, u := range f.got.Unreadable {
		what := "not read: "
		if u.Skipped {
			what = "skipped: " // not ACTIVE in the organisation
		}
		out = append(out, m.st.warn(what+safe(u.Label()+": "+u.Code)))
	}
	widths := fleetWidths(w)
	out = append(out, "", m.st.head("  "+m.row(widths, "DLQ", "VISIBLE", "IN FLIGHT", "OLDEST EXPIRES", "ALARM", "SOURCES → CONSUMERS")))
	rows := m.fleetRows()
	if len(rows) == 0 {
		out = append(out, "  (no DLQ"+m.filterNote()+")")
	}
	focus := len(out)
	cur := clamp(f.cursor, len(rows))
	for i, d := range rows {
		if i == cur {
			focus = len(out)
		}
		name := d.Queue
		if f.got.Accounts {
			name = d.Account + " " + d.Queue
		}
		line := m.row(widths, safe(name), strconv.FormatInt(d.Visible, 10), strconv.FormatInt(d.InFlight, 10),
			expiresIn(d, now), alarm(d), sources(d))
		out = append(out, m.mark(line, i == cur))
		if n := f.got.Notes[d.ARN]; n != nil {
			out = append(out, "    "+m.st.warn("note: ")+noteText(n))
		}
		if r := f.got.Redrives[d.ARN]; r != "" {
			out = append(out, "    "+m.st.warn("redrive running: ")+safe(r))
		}
	}
	return out, focus
}

// queueRef is how the view's steps name d: by ARN when the fleet spans
// accounts, so that opening it never acts on a queue of the same name in
// the account of the credentials in use (an organisation has an
// orders-dlq in every account).
func (m *Model) queueRef(d inventory.DLQ) string {
	if m.fleet.got != nil && m.fleet.got.Accounts && d.ARN != "" {
		return d.ARN
	}
	return d.Queue
}

// noteText is a note on one line: the text sanitised, who and when.
func noteText(n *note.Note) string {
	when := ""
	if !n.At.IsZero() {
		when = ", " + n.At.UTC().Format("2006-01-02 15:04 UTC")
	}
	text := safe(n.Text)
	if n.Unreadable {
		text = "(not written by mfdlq) " + text
	}
	return text + " (" + safe(n.Who()) + when + ")"
}

// fleetWidths share the width among the columns; the last takes the rest.
func fleetWidths(w int) []int {
	q := 22
	if w >= 120 {
		q = 40
	}
	return []int{q, 7, 9, 14, 5}
}

func (m *Model) filterNote() string {
	if m.filter == "" {
		return ""
	}
	return " matches the filter"
}

// expiresIn is the countdown of ls: when the oldest message expires.
func expiresIn(d inventory.DLQ, now time.Time) string {
	switch {
	case d.Visible+d.InFlight == 0:
		return "-"
	case d.ExpiresIn != nil:
		left := *d.ExpiresIn
		if left <= 0 {
			return "due"
		}
		s := sqsapi.Human(time.Duration(left) * time.Second)
		if d.Expiry != nil && d.Expiry.UpperBound {
			s = "≤ " + s
		}
		return s
	}
	return "no data"
}

func alarm(d inventory.DLQ) string {
	switch {
	case !d.AlarmsKnown:
		return "?"
	case len(d.Alarms) == 0:
		return "none"
	}
	return "yes"
}

func sources(d inventory.DLQ) string {
	names := make([]string, 0, len(d.Sources))
	for _, s := range d.Sources {
		names = append(names, safe(s.Queue))
	}
	src := strings.Join(names, ", ")
	src = cmp.Or(src, "(no source names it)")
	switch {
	case !d.FunctionsKnown:
		return src + " → ?"
	case len(d.Functions) > 0:
		fs := make([]string, 0, len(d.Functions))
		for _, f := range d.Functions {
			fs = append(fs, safe(f))
		}
		return src + " → " + strings.Join(fs, ", ")
	}
	return src
}
