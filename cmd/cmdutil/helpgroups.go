package cmdutil

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// A command with many flags (redrive has 37) shows them in groups, the
// ones most runs need first, so its first screen answers "how do I run
// it": what it is, the usage line, the examples and those groups; the long
// explanation and the advanced flags follow.

// flagGroupAnnotation names the help group of a flag (pflag annotations
// are how cobra keeps per-flag metadata).
const flagGroupAnnotation = "mfdlq_help_group"

// advancedGroup collects the flags no group names.
const advancedGroup = "Advanced"

// FlagGroup is one group of a command's help: a title and its flags, in
// the order they are listed.
type FlagGroup struct {
	Title string
	Flags []string
}

// GroupFlags files c's flags under groups and gives c the grouped help.
// A flag no group names is advanced; a name that is not a flag panics, so
// a renamed flag cannot silently drop out of its group.
func GroupFlags(c *cobra.Command, groups []FlagGroup) {
	for _, g := range groups {
		for _, name := range g.Flags {
			if err := c.Flags().SetAnnotation(name, flagGroupAnnotation, []string{g.Title}); err != nil {
				panic("GroupFlags: " + err.Error())
			}
		}
	}
	c.SetHelpFunc(func(c *cobra.Command, _ []string) {
		c.Print(groupedHelp(c, groups))
	})
}

// groupedHelp is the help of a command with grouped flags: the first
// screen, then Long, then the advanced and global flags and the pointer
// to the runbook.
func groupedHelp(c *cobra.Command, groups []FlagGroup) string {
	titles := make([]string, len(groups))
	for i, g := range groups {
		titles[i] = g.Title
	}
	var b strings.Builder
	b.WriteString(c.Short + "\n\nUsage:\n  " + c.UseLine() + "\n")
	if c.Example != "" {
		b.WriteString("\nExamples:\n" + strings.TrimRight(c.Example, "\n") + "\n")
	}
	// The named groups list their flags in the order the group gives
	// (most used first); the advanced ones alphabetically.
	named := map[string]*pflag.FlagSet{}
	for _, t := range titles {
		named[t] = pflag.NewFlagSet(t, pflag.ContinueOnError)
		named[t].SortFlags = false
	}
	advanced := pflag.NewFlagSet(advancedGroup, pflag.ContinueOnError)
	local := c.LocalFlags()
	local.VisitAll(func(f *pflag.Flag) {
		if len(f.Annotations[flagGroupAnnotation]) == 0 {
			advanced.AddFlag(f)
		}
	})
	for _, g := range groups {
		for _, name := range g.Flags {
			if f := local.Lookup(name); f != nil {
				named[g.Title].AddFlag(f)
			}
		}
	}
	byGroup := named
	byGroup[advancedGroup] = advanced
	section := func(title string, fs *pflag.FlagSet) {
		if fs != nil && fs.HasAvailableFlags() {
			b.WriteString("\n" + title + " flags:\n" + strings.TrimRight(fs.FlagUsages(), " \n") + "\n")
		}
	}
	for _, t := range titles {
		section(t, byGroup[t])
	}
	if c.Long != "" {
		b.WriteString("\n" + strings.TrimSpace(c.Long) + "\n")
	}
	section(advancedGroup, byGroup[advancedGroup])
	if c.HasAvailableInheritedFlags() {
		b.WriteString("\nGlobal flags:\n" + strings.TrimRight(c.InheritedFlags().FlagUsages(), " \n") + "\n")
	}
	b.WriteString(RunbookPointer)
	return b.String()
}

// RunbookPointer ends every command's help.
const RunbookPointer = "\nThe runbook, step by step, and what to read in each: docs/runbook.md\n"
