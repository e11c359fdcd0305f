package cmd

import (
	"bufio"
	"io"
	"os"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"golang.org/x/term"
)

// IOStreams are the command's standard streams and what they are connected to.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// OutTTY and ErrTTY tell whether Out and ErrOut are terminals.
	OutTTY bool
	ErrTTY bool
	// InTTY tells whether In is a terminal, so mfdlq may ask a question.
	InTTY bool
	// Color allows escape codes on a terminal (off with --no-color or NO_COLOR).
	Color bool

	in *bufio.Reader // In, buffered once for every question (see ReadLine)
}

// ReadLine reads the next line of In. Every question of a run reads
// through it: a reader per question would buffer lines typed or piped
// ahead and lose them to the next question.
func (s *IOStreams) ReadLine() (string, error) {
	if s.in == nil {
		s.in = bufio.NewReader(s.In)
	}
	return s.in.ReadString('\n')
}

// SystemIO returns the process's streams. MFDLQ_FORCE_TTY=1 makes mfdlq
// treat them as terminals, so tests can cover the TTY shapes.
func SystemIO() *IOStreams {
	forced := os.Getenv("MFDLQ_FORCE_TTY") == "1"
	return &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		OutTTY: forced || term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: forced || term.IsTerminal(int(os.Stderr.Fd())),
		InTTY:  forced || term.IsTerminal(int(os.Stdin.Fd())),
		Color:  os.Getenv("NO_COLOR") == "",
	}
}

// Renderer returns a lipgloss renderer bound to w — never the global one —
// that emits colour only when w is a terminal and colour is allowed.
func (s *IOStreams) Renderer(w io.Writer, tty bool) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(w)
	if tty && s.Color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return r
}
