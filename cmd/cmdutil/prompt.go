package cmdutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/untrusted"
)

// Prompter asks the operator before mfdlq changes something. Every
// confirmation of every command goes through the one in Deps.Prompt (gh's
// Prompter is the model), so tests — and a full-screen view — can answer
// the very questions the commands ask.
type Prompter interface {
	// Confirm asks a yes/no question whose default is no. Only an explicit
	// yes returns true; an error means there was no answer to take (no
	// terminal, end of input), which is never a yes.
	Confirm(question string) (bool, error)
	// Input asks for a line of text (record's "What caused it?", the
	// runbook's "[Y]es / [s]kip / [q]uit"): the answer trimmed, "" for a
	// bare Enter. ErrNoTerminal when nobody can be asked; ErrInterrupted
	// on Ctrl-C or SIGTERM, which the caller ends the run with (exit 130)
	// before it changes or writes anything.
	Input(question string) (string, error)
}

var (
	// ErrNoTerminal is a Prompter's answer when nobody can be asked.
	ErrNoTerminal = errors.New("no terminal to ask on")
	// ErrNoAnswer is a Prompter's answer when input ended before a reply.
	ErrNoAnswer = errors.New("no answer")
)

// TerminalPrompter asks on the command's own streams: the question on
// ErrOut, the answer a line of In, and only when In is a terminal.
type TerminalPrompter struct {
	IO *IOStreams
}

var _ Prompter = (*TerminalPrompter)(nil)

// Confirm writes the question (sanitised: it holds queue and function
// names) with "[y/N]" and reads one line.
func (p *TerminalPrompter) Confirm(question string) (bool, error) {
	if !p.IO.InTTY {
		return false, ErrNoTerminal
	}
	fmt.Fprintf(p.IO.ErrOut, "%s [y/N] ", untrusted.Terminal(question))
	return ParseConfirm(p.IO.ReadLine())
}

// Input writes the question (sanitised) and reads one line. Input that
// ended before any byte is ErrNoAnswer.
func (p *TerminalPrompter) Input(question string) (string, error) {
	if !p.IO.InTTY {
		return "", ErrNoTerminal
	}
	fmt.Fprintf(p.IO.ErrOut, "%s ", untrusted.Terminal(question))
	return ParseInput(p.IO.ReadLine())
}

// ParseInput reads a typed line: trimmed; an interrupt, or input that
// ended before any byte, is an error.
func ParseInput(line string, readErr error) (string, error) {
	switch {
	case errors.Is(readErr, ErrInterrupted):
		return "", ErrInterrupted
	case readErr != nil && line == "":
		return "", ErrNoAnswer
	}
	return strings.TrimSpace(line), nil
}

// ParseConfirm reads a typed answer: "y" or "yes" in any case, surrounded
// by spaces, proceeds; anything else — empty, "no", garbage — refuses;
// input that ended before any byte is ErrNoAnswer, Ctrl-C ErrInterrupted.
// A last line without its newline still counts: a pipe may end with "yes".
func ParseConfirm(line string, readErr error) (bool, error) {
	if errors.Is(readErr, ErrInterrupted) {
		return false, ErrInterrupted
	}
	if readErr != nil && line == "" {
		return false, ErrNoAnswer
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}
