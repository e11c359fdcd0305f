package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/mfdlq/mfdlq/cmd/redrive"
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

// redrive's first screen is what most runs need: the usage, the examples
// and the selection, pace and safety flags come before the long
// explanation and the advanced flags; no flag is lost from the help.
func TestRedriveHelpFirstScreen(t *testing.T) {
	d, _, _ := testDeps(t, false)
	c := redrive.NewCmdRedrive(d, nil)
	newRootCmd(d).AddCommand(c)
	var out bytes.Buffer
	c.SetOut(&out)
	if err := c.Help(); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	lines := strings.Split(help, "\n")
	first := strings.Join(lines[:min(len(lines), 45)], "\n")
	for _, want := range []string{"Usage:", "Examples:", "Selection flags:", "--queue", "Pace flags:", "--rate", "Safety flags:", "--dry-run", "--yes", "--canary"} {
		if !strings.Contains(first, want) {
			t.Errorf("redrive's first 45 lines lack %q:\n%s", want, first)
		}
	}
	if strings.Contains(help, "default -1") {
		t.Error("redrive's help shows a sentinel default")
	}
	if a, l := strings.Index(help, "Advanced flags:"), strings.Index(help, "Move the DLQ's messages"); a < l || l < 0 {
		t.Errorf("the advanced flags (at %d) do not follow the explanation (at %d)", a, l)
	}
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && !strings.Contains(help, "--"+f.Name+" ") {
			t.Errorf("--%s is missing from redrive's help", f.Name)
		}
	})
}
