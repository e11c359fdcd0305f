package cmd

import (
	"fmt"
	"strings"
)

// confirm asks before a change. With --yes it proceeds; without a terminal
// to ask on it refuses, because a change nobody confirmed is a surprise; on a
// terminal only "y" or "yes" proceeds. Call it after the plan and the
// account, region and queue have been printed.
func (d *Deps) confirm(question string, yes bool) error {
	if yes {
		return nil
	}
	if !d.IO.InTTY {
		return checkFailedf("nothing changed: no terminal to ask on; review the plan above and pass --yes to go ahead")
	}
	fmt.Fprintf(d.IO.ErrOut, "%s [y/N] ", safeArgs([]any{question})...)
	line, err := d.IO.ReadLine()
	if err != nil && line == "" {
		return checkFailedf("nothing changed: no answer")
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return checkFailedf("nothing changed: not confirmed")
}
