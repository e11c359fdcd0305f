package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/contain"
)

func (inc *Incident) writeContain(b *strings.Builder) {
	c := inc.Contain
	if c == nil {
		b.WriteString("\ncontain.json is missing.\n")
		return
	}
	b.WriteString("\n| | |\n|---|---|\n")
	row(b, "verdict", c.Verdict.Say())
	row(b, "DLQ visible / in flight", fmt.Sprintf("%d / %d", c.DLQ.Visible, c.DLQ.InFlight))
	trend := orDash(c.DLQ.Direction)
	if c.DLQ.Direction != contain.Unknown && c.DLQ.Direction != "" {
		trend += fmt.Sprintf(" (%s → %s", value(c.DLQ.From), value(c.DLQ.To))
		if c.DLQ.Window != "" {
			trend += " over " + c.DLQ.Window
		}
		if c.DLQ.Source != "" {
			trend += ", from " + c.DLQ.Source
		}
		trend += ")"
	}
	row(b, "DLQ trend", trend)
	if s := c.Source; s != nil {
		row(b, "source queue", orDash(s.Queue))
		row(b, "source visible / in flight", fmt.Sprintf("%d / %d", s.Visible, s.InFlight))
		row(b, "source age of oldest message", seconds(s.AgeOfOldest)+" (normal "+seconds(s.NormalAge)+")")
	} else {
		row(b, "source queue", "none found")
	}
	for i, m := range c.Mappings {
		row(b, fmt.Sprintf("Lambda mapping %d", i+1), kvList(asMap(m)))
	}
	if c.Change != nil {
		row(b, "mapping change", kvList(asMap(c.Change)))
	}
	for _, r := range c.Reasons {
		fmt.Fprintf(b, "\n- %s", r)
	}
	if len(c.Reasons) > 0 {
		b.WriteString("\n")
	}
}

func seconds(p *float64) string {
	if p == nil {
		return "-"
	}
	return (time.Duration(*p) * time.Second).String()
}
