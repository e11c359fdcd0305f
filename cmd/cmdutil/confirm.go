package cmdutil

import (
	"errors"
	"fmt"
)

// Confirm asks before a change. With --yes it proceeds; otherwise it asks
// the Prompter, and anything but an explicit yes refuses with exit 3 and
// changes nothing — without a terminal to ask on too, because a change
// nobody confirmed is a surprise. Ctrl-C or SIGTERM at the question changes
// nothing either and exits 130. Call it after the plan and the account,
// region and queue have been printed.
func (d *Deps) Confirm(question string, yes bool) error {
	if yes {
		return nil
	}
	ok, err := d.Prompter().Confirm(question)
	switch {
	case errors.Is(err, ErrInterrupted):
		// Not an ExitError: Main maps ErrInterrupted to 130.
		return fmt.Errorf("nothing changed: %w", err)
	case errors.Is(err, ErrNoTerminal):
		return Refusedf("nothing changed: no terminal to ask on; review the plan above and pass --yes to go ahead")
	case err != nil:
		return Refusedf("nothing changed: %w", err)
	case !ok:
		return Refusedf("nothing changed: not confirmed")
	}
	return nil
}

// Prompter is Deps.Prompt, or a TerminalPrompter on d.IO for a Deps built
// by hand.
func (d *Deps) Prompter() Prompter {
	if d.Prompt != nil {
		return d.Prompt
	}
	return &TerminalPrompter{IO: d.IO}
}
