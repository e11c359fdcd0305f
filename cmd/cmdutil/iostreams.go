package cmdutil

import (
	"bufio"
	"io"
	"os"

	// No terminal query before mfdlq starts (Bubble Tea's init asked for
	// the background colour and waited up to 5 s for an answer).
	_ "earlyterm"

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
	// Interrupt closes on Ctrl-C or SIGTERM (Main sets it to the signal
	// context's Done): a question waiting for a line gives up then, so the
	// signal ends the run at a prompt as it does anywhere else.
	Interrupt <-chan struct{}

	in      *bufio.Reader // In, buffered once for every question (see ReadLine)
	pending chan readLine // a read an interrupt left waiting for its line
}

// readLine is one line of In as bufio returned it.
type readLine struct {
	line string
	err  error
}

// ReadLine reads the next line of In. Every question of a run reads
// through it: a reader per question would buffer lines typed or piped
// ahead and lose them to the next question. On Interrupt it returns
// ErrInterrupted at once: a read from a terminal cannot be cancelled, so
// it stays pending, and the next ReadLine takes its line.
func (s *IOStreams) ReadLine() (string, error) {
	if s.in == nil {
		s.in = bufio.NewReader(s.In)
	}
	if s.Interrupt == nil {
		return s.in.ReadString('\n')
	}
	select {
	case <-s.Interrupt:
		return "", ErrInterrupted
	default:
	}
	if s.pending == nil {
		s.pending = make(chan readLine, 1)
		go func(in *bufio.Reader, got chan<- readLine) {
			line, err := in.ReadString('\n')
			got <- readLine{line, err}
		}(s.in, s.pending)
	}
	select {
	case r := <-s.pending:
		s.pending = nil
		return r.line, r.err
	case <-s.Interrupt:
		return "", ErrInterrupted
	}
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
	// Stated, never asked: an adaptive colour would otherwise query the
	// terminal for its background and wait for the answer (earlyterm).
	r.SetHasDarkBackground(true)
	if tty && s.Color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return r
}
