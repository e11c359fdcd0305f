package report

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
)

func (inc *Incident) writeCheck(b *strings.Builder, _ incident.Event) {
	c := inc.Check
	if c == nil {
		b.WriteString("\ncheck.json is missing.\n")
		return
	}
	// The findings that failed or warned, with their fixes, are the first
	// screen's "What to change": here only what held or was not judged.
	var rest []check.Finding
	for _, f := range c.Findings {
		if f.Status == check.Pass || f.Status == check.Skip {
			rest = append(rest, f)
		}
	}
	if len(rest) < len(c.Findings) {
		fmt.Fprintf(b, "\n%s under What to change.\n", plural.Of(len(c.Findings)-len(rest), "finding"))
	}
	n, more := capped(len(rest), "finding")
	for _, f := range rest[:n] {
		what := "passed"
		if f.Status == check.Skip {
			what = "not checked"
		}
		fmt.Fprintf(b, "- %s: %s\n", what, inc.plain(cmp.Or(f.Message, f.ID), maxValue))
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
		what := "failed check"
		if f.Status == check.Warn {
			what = "warning"
		} else if f.Status != check.Fail {
			what = string(f.Status)
		}
		text := what + ": " + cmp.Or(f.Message, f.ID)
		if f.Fix != "" {
			text += " — fix: " + f.Fix
		}
		out = append(out, text)
	}
	return out
}
