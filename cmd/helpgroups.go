package cmd

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/runbook"
)

// stepList is the root help's list of the runbook's steps, numbered where
// the runbook numbers them (runbook.Steps, the one place).
func stepList() string {
	var b strings.Builder
	for _, s := range runbook.All() {
		n, name := "  ", s.Name
		if o := s.Ordinal(); o != "" {
			n = o + "."
		}
		if s.Name == runbook.StepFix {
			name = "(fix)"
		}
		fmt.Fprintf(&b, "  %-3s %-9s %s\n", n, name, s.Title)
	}
	return b.String()
}
