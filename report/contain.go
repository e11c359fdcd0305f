package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/lambdaapi"
)

func (inc *Incident) writeContain(b *strings.Builder, _ incident.Event) {
	c := inc.Contain
	if c == nil {
		b.WriteString("\ncontain.json is missing.\n")
		return
	}
	b.WriteString("\n| | |\n|---|---|\n")
	inc.row(b, "DLQ visible / in flight", fmt.Sprintf("%d / %d", c.DLQ.Visible, c.DLQ.InFlight))
	trend := orDash(c.DLQ.Direction)
	if c.DLQ.Direction != contain.Unknown && c.DLQ.Direction != "" {
		trend += fmt.Sprintf(" (%s → %s", strconv.FormatFloat(c.DLQ.From, 'f', -1, 64), strconv.FormatFloat(c.DLQ.To, 'f', -1, 64))
		if c.DLQ.Window != "" {
			trend += " over " + durationWords(c.DLQ.Window)
		}
		if c.DLQ.Source != "" {
			trend += ", from " + c.DLQ.Source
		}
		trend += ")"
	}
	inc.row(b, "DLQ trend", trend)
	if s := c.Source; s != nil {
		inc.row(b, "source queue", orDash(s.Queue))
		inc.row(b, "source visible / in flight", fmt.Sprintf("%d / %d", s.Visible, s.InFlight))
		age := seconds(s.AgeOfOldest)
		if s.NormalAge != nil {
			age += " (normal " + seconds(s.NormalAge) + ")"
		}
		inc.row(b, "source age of oldest message", age)
	} else {
		inc.row(b, "source queue", "none found")
	}
	if ch := c.Change; ch != nil {
		what := fmt.Sprintf("%s of %s (%s): %s → %s", ch.Action, ch.UUID, ch.Function, ch.Before, ch.After)
		if ch.DryRun {
			what += " (dry run: not made)"
		}
		inc.row(b, "mapping change", what)
	}
	inc.writeMappings(b, c.Mappings)
	nr, moreReasons := capped(len(c.Reasons), "reason")
	for _, r := range c.Reasons[:nr] {
		fmt.Fprintf(b, "\n- %s", inc.plain(r, maxValue))
	}
	if len(c.Reasons) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(moreReasons)
}

// writeMappings is the Lambda event source mappings reading the source, as
// a table.
func (inc *Incident) writeMappings(b *strings.Builder, ms []lambdaapi.Mapping) {
	if len(ms) == 0 {
		return
	}
	b.WriteString("\n| Lambda mapping | function | state | batch | max concurrency | function timeout | queue visibility timeout |\n|---|---|---|---|---|---|---|\n")
	n, more := capped(len(ms), "mapping")
	for _, m := range ms[:n] {
		mc := "none"
		if m.MaximumConcurrency != nil {
			mc = strconv.Itoa(int(*m.MaximumConcurrency))
		}
		timeout := "-"
		if m.FunctionTimeout != nil {
			timeout = human(time.Duration(*m.FunctionTimeout) * time.Second)
		}
		vis := human(time.Duration(m.QueueVisibility) * time.Second)
		if m.VisibilityAssessment != "" {
			vis += " (" + inc.plain(m.VisibilityAssessment, maxName) + ")"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s | %s | %s |\n", inc.plain(m.UUID, maxName), inc.plain(m.Function, maxName), inc.plain(m.State, maxName),
			m.BatchSize, mc, timeout, vis)
	}
	b.WriteString(more)
}

func seconds(p *float64) string {
	if p == nil {
		return "not known"
	}
	return human(time.Duration(*p) * time.Second)
}
