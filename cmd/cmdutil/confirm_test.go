package cmdutil_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
)

func TestParseConfirm(t *testing.T) {
	tests := []struct {
		line    string
		readErr error
		want    bool
		wantErr error
	}{
		{"y\n", nil, true, nil},
		{"yes\n", nil, true, nil},
		{"Y\n", nil, true, nil},
		{"  YES \r\n", nil, true, nil},
		{"yes", io.EOF, true, nil}, // a pipe's last line without its newline
		{"\n", nil, false, nil},
		{"n\n", nil, false, nil},
		{"no\n", nil, false, nil},
		{"yess\n", nil, false, nil},
		{"ye\n", nil, false, nil},
		{"y es\n", nil, false, nil},
		{"yes please\n", nil, false, nil},
		{"oui\n", nil, false, nil},
		{"1\n", nil, false, nil},
		{"true\n", nil, false, nil},
		{"\x1b[Ayes\n", nil, false, nil},
		{"", io.EOF, false, cmdutil.ErrNoAnswer},
		{"", errors.New("read /dev/stdin: input/output error"), false, cmdutil.ErrNoAnswer},
	}
	for _, tc := range tests {
		got, err := cmdutil.ParseConfirm(tc.line, tc.readErr)
		if got != tc.want || !errors.Is(err, tc.wantErr) {
			t.Errorf("cmdutil.ParseConfirm(%q, %v) = %v, %v; want %v, %v", tc.line, tc.readErr, got, err, tc.want, tc.wantErr)
		}
	}
}

// The terminal prompter asks on stderr, sanitised, and reads one line per
// question from the shared reader: a second question gets the second line.
func TestTerminalPrompter(t *testing.T) {
	var errOut bytes.Buffer
	s := &cmdutil.IOStreams{In: strings.NewReader("yes\nno\n"), ErrOut: &errOut, InTTY: true}
	p := &cmdutil.TerminalPrompter{IO: s}
	first, err1 := p.Confirm("Move up to 3 messages from a\x1b[31m-dlq to a?")
	second, err2 := p.Confirm("again?")
	third, err3 := p.Confirm("and again?")
	if !first || err1 != nil || second || err2 != nil || third || !errors.Is(err3, cmdutil.ErrNoAnswer) {
		t.Fatalf("answers %v %v, %v %v, %v %v; want yes, no, no answer", first, err1, second, err2, third, err3)
	}
	if want := "Move up to 3 messages from a\\x1b[31m-dlq to a? [y/N] again? [y/N] and again? [y/N] "; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
	// Not a terminal: nobody is asked, nothing is read.
	in := strings.NewReader("yes\n")
	errOut.Reset()
	p = &cmdutil.TerminalPrompter{IO: &cmdutil.IOStreams{In: in, ErrOut: &errOut}}
	if ok, err := p.Confirm("q?"); ok || !errors.Is(err, cmdutil.ErrNoTerminal) || errOut.Len() != 0 || in.Len() != 4 {
		t.Errorf("without a terminal: %v, %v, stderr %q, %d bytes unread", ok, err, errOut.String(), in.Len())
	}
}

// confirm proceeds on an explicit yes or --yes only; every other answer
// is a refusal with exit 3. This is the test that fails if confirm, or
// the parsing under it, accepts any answer.
func TestConfirmProceedsOnlyOnYes(t *testing.T) {
	for _, a := range cmdtest.Answers {
		t.Run(a.Name, func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			p := &cmdtest.FakePrompter{Typed: a.Typed}
			d.Prompt = p
			err := d.Confirm("Move up to 3 messages from a-dlq to a?", false)
			if a.Proceed {
				if err != nil {
					t.Fatalf("confirm = %v, want to proceed", err)
				}
			} else if cmdutil.ExitCode(err, false) != cmdutil.ExitCheckFailed || err.Error() != a.Refusal {
				t.Fatalf("confirm = %v (exit %d), want %q and exit 3", err, cmdutil.ExitCode(err, false), a.Refusal)
			}
			if len(p.Asked) != 1 {
				t.Errorf("asked %q, want the one question", p.Asked)
			}
		})
	}
	t.Run("--yes", func(t *testing.T) {
		d, _, _ := cmdtest.Deps(t, false)
		p := &cmdtest.FakePrompter{}
		d.Prompt = p
		if err := d.Confirm("q?", true); err != nil || len(p.Asked) != 0 {
			t.Fatalf("confirm with --yes = %v, asked %q: want to proceed without asking", err, p.Asked)
		}
	})
	t.Run("no terminal", func(t *testing.T) {
		d, _, errOut := cmdtest.Deps(t, false)
		d.IO.In = strings.NewReader("yes\n")
		err := d.Confirm("q?", false)
		if cmdutil.ExitCode(err, false) != cmdutil.ExitCheckFailed || !strings.Contains(err.Error(), "no terminal to ask on; review the plan above and pass --yes") || errOut.Len() != 0 {
			t.Fatalf("confirm off a terminal = %v, stderr %q: want a refusal without a question", err, errOut)
		}
	})
	t.Run("terminal", func(t *testing.T) {
		d, _, errOut := cmdtest.Deps(t, false)
		d.IO.InTTY = true
		d.IO.In = strings.NewReader("garbage\n")
		if err := d.Confirm("q?", false); cmdutil.ExitCode(err, false) != cmdutil.ExitCheckFailed || errOut.String() != "q? [y/N] " {
			t.Fatalf("confirm on a terminal = %v, stderr %q", err, errOut)
		}
	})
}

// A question waiting for a line gives up on Ctrl-C: confirm's error exits
// 130 (not 3, a refusal) and says nothing changed.
func TestConfirmInterrupted(t *testing.T) {
	d, _, errOut := cmdtest.Deps(t, false)
	cmdtest.InterruptedIO(t, d.IO)
	err := d.Confirm("Move up to 3 messages from a-dlq to a?", false)
	if code := cmdutil.ExitCode(err, true); code != cmdutil.ExitInterrupted || err.Error() != "nothing changed: interrupted" {
		t.Fatalf("confirm = %v (exit %d), want \"nothing changed: interrupted\" and exit 130", err, code)
	}
	if !strings.Contains(errOut.String(), "[y/N]") {
		t.Errorf("the question was not asked: %q", errOut)
	}
}

// The line a read left pending when an interrupt came is the next
// question's: nothing typed ahead is lost.
func TestReadLineKeepsThePendingLine(t *testing.T) {
	r, w := io.Pipe()
	reading := make(chan struct{})
	stop := make(chan struct{})
	s := &cmdutil.IOStreams{In: &announcingReader{r: r, reading: reading}, Interrupt: stop}
	done := make(chan error)
	go func() { _, err := s.ReadLine(); done <- err }()
	<-reading // the read waits on the terminal
	close(stop)
	if err := <-done; !errors.Is(err, cmdutil.ErrInterrupted) {
		t.Fatalf("ReadLine after the interrupt = %v, want cmdutil.ErrInterrupted", err)
	}
	go func() { _, _ = w.Write([]byte("yes\n")) }()
	s.Interrupt = make(chan struct{})
	if line, err := s.ReadLine(); line != "yes\n" || err != nil {
		t.Errorf("the next ReadLine = %q, %v; want the pending line", line, err)
	}
}

// announcingReader closes reading at its first Read.
type announcingReader struct {
	r       io.Reader
	reading chan struct{}
	once    sync.Once
}

func (a *announcingReader) Read(p []byte) (int, error) {
	a.once.Do(func() { close(a.reading) })
	return a.r.Read(p)
}
