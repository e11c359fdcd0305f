package cmd

import (
	"errors"
	"fmt"
)

// confirm asks before a change. With --yes it proceeds; otherwise it asks
// the Prompter, and anything but an explicit yes refuses with exit 3 and
// changes nothing — without a terminal to ask on too, because a change
// nobody confirmed is a surprise. Ctrl-C or SIGTERM at the question changes
// nothing either and exits 130. Call it after the plan and the account,
// region and queue have been printed.
func (d *Deps) confirm(question string, yes bool) error {
	if yes {
		return nil
	}
	ok, err := d.prompter().Confirm(question)
	switch {
	case errors.Is(err, errInterrupted):
		// Not an exitError: Main maps errInterrupted to 130.
		return fmt.Errorf("nothing changed: %w", err)
	case errors.Is(err, ErrNoTerminal):
		return refusedf("nothing changed: no terminal to ask on; review the plan above and pass --yes to go ahead")
	case err != nil:
		return refusedf("nothing changed: %w", err)
	case !ok:
		return refusedf("nothing changed: not confirmed")
	}
	return nil
}

// prompter is Deps.Prompt, or a TerminalPrompter on d.IO for a Deps built
// by hand.
func (d *Deps) prompter() Prompter {
	if d.Prompt != nil {
		return d.Prompt
	}
	return &TerminalPrompter{IO: d.IO}
}
