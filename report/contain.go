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
	inc.row(b, "verdict", c.Verdict.Say())
	inc.row(b, "DLQ visible / in flight", fmt.Sprintf("%d / %d", c.DLQ.Visible, c.DLQ.InFlight))
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
	inc.row(b, "DLQ trend", trend)
	if s := c.Source; s != nil {
		inc.row(b, "source queue", orDash(s.Queue))
		inc.row(b, "source visible / in flight", fmt.Sprintf("%d / %d", s.Visible, s.InFlight))
		inc.row(b, "source age of oldest message", seconds(s.AgeOfOldest)+" (normal "+seconds(s.NormalAge)+")")
	} else {
		inc.row(b, "source queue", "none found")
	}
	nm, moreMappings := capped(len(c.Mappings), "mapping")
	for i, m := range c.Mappings[:nm] {
		inc.row(b, fmt.Sprintf("Lambda mapping %d", i+1), kvList(asMap(m)))
	}
	if c.Change != nil {
		inc.row(b, "mapping change", kvList(asMap(c.Change)))
	}
	b.WriteString(moreMappings)
	nr, moreReasons := capped(len(c.Reasons), "reason")
	for _, r := range c.Reasons[:nr] {
		fmt.Fprintf(b, "\n- %s", inc.plain(r, maxValue))
	}
	if len(c.Reasons) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(moreReasons)
}

func seconds(p *float64) string {
	if p == nil {
		return "-"
	}
	return (time.Duration(*p) * time.Second).String()
}
