package report

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/check"
)

func (inc *Incident) writeCheck(b *strings.Builder) {
	c := inc.Check
	if c == nil {
		b.WriteString("\ncheck.json is missing.\n")
		return
	}
	b.WriteString("\n| status | finding | fix |\n|---|---|---|\n")
	n, more := capped(len(c.Findings), "finding")
	for _, f := range c.Findings[:n] {
		fmt.Fprintf(b, "| %s | %s | %s |\n", inc.plain(string(f.Status), maxName), inc.plain(firstNonEmpty(f.Message, f.ID), maxValue), inc.plain(orDash(f.Fix), maxValue))
	}
	b.WriteString(more)
}

// Warnings are check's findings that did not pass, as one line each: what
// would have warned earlier.
func (inc *Incident) Warnings() []string {
	if inc.Check == nil {
		return nil
	}
	var out []string
	for _, f := range inc.Check.Findings {
		if f.Status == check.Pass || f.Status == check.Skip {
			// A skip is a finding check could not judge: it warned of nothing.
			continue
		}
		text := firstNonEmpty(f.Message, f.ID)
		if f.Fix != "" {
			text += " — fix: " + f.Fix
		}
		out = append(out, fmt.Sprintf("%s (%s)", text, f.Status))
	}
	return out
}
