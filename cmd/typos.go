package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
)

// A typo gets the next action as its error's hint (hintedError), which
// Main prints on a line of its own or as the JSON line's "hint".

// unknownCommand is root's argument check: cobra's own prints its "Did you
// mean this?" inside the error, newlines and tab, which reach the terminal
// escaped as \n. The suggestion is the error's hint instead.
func unknownCommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	err := cmdutil.UsageErrorf("unknown command %q for %q", args[0], c.CommandPath())
	var seen []string
	for _, s := range c.SuggestionsFor(args[0]) {
		seen = append(seen, fmt.Sprintf("'%s %s'", c.CommandPath(), s))
	}
	if len(seen) == 0 {
		return cmdutil.WithHint(err, fmt.Sprintf("run '%s --help' for the commands", c.CommandPath()))
	}
	return cmdutil.WithHint(err, "did you mean "+strings.Join(seen, " or ")+"?")
}

// extraArgument is the error of a command that takes no argument and got
// one (cobra.NoArgs says "unknown command"): a DLQ typed as an
// argument is meant for --queue.
func extraArgument(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	err := cmdutil.UsageErrorf("unknown command %q for %q", args[0], c.CommandPath())
	if c.Flags().Lookup("queue") != nil {
		return cmdutil.WithHint(err, fmt.Sprintf("the queue goes in --queue: %s --queue %s", c.CommandPath(), args[0]))
	}
	return cmdutil.WithHint(err, fmt.Sprintf("run '%s --help' for usage", c.CommandPath()))
}

// adviseExtraArgument makes sub's "unknown command" (cobra.NoArgs given an
// argument) say what the argument was probably meant for.
func adviseExtraArgument(sub *cobra.Command) {
	args := sub.Args
	if args == nil {
		return
	}
	sub.Args = func(c *cobra.Command, a []string) error {
		err := args(c, a)
		if err != nil && strings.HasPrefix(err.Error(), "unknown command ") {
			return extraArgument(c, a)
		}
		return err
	}
}
