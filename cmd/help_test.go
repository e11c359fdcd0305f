package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/runbook"
)

// Each step's command says its number as the runbook numbers it, in its
// one-line help and in the root help's list, and every command's help
// ends by pointing to docs/runbook.md.
func TestHelpNumbersStepsAsTheRunbook(t *testing.T) {
	d, _, _ := testDeps(t, false)
	root := newRootCmd(d)
	var rootHelp bytes.Buffer
	root.SetOut(&rootHelp)
	if err := root.Help(); err != nil {
		t.Fatal(err)
	}
	for _, s := range runbook.All() {
		if s.Name == runbook.StepFix {
			continue
		}
		c, _, err := root.Find([]string{s.Name})
		if err != nil || c == root {
			t.Errorf("no command %s", s.Name)
			continue
		}
		if label := runbook.Label(s.Name); !strings.HasPrefix(c.Short, label+": ") {
			t.Errorf("%s's Short %q does not start with %q", s.Name, c.Short, label)
		}
		if o := s.Ordinal(); o != "" && !strings.Contains(rootHelp.String(), "  "+o+".  "+s.Name+" ") {
			t.Errorf("the root help does not list %s as step %s:\n%s", s.Name, o, rootHelp.String())
		}
	}
	for _, c := range append(root.Commands(), root) {
		var out bytes.Buffer
		c.SetOut(&out)
		if err := c.Help(); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(out.String(), "docs/runbook.md\n") {
			t.Errorf("mfdlq %s --help does not end by pointing to docs/runbook.md:\n…%s", c.Name(), out.String()[max(0, out.Len()-200):])
		}
	}
}
