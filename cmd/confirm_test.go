package cmd

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
)

// fakePrompter answers the questions of a run with lines an operator
// would type, in order; past the last one, input has ended. It replaces
// the terminal, not the meaning of an answer: a typed line is read as the
// TerminalPrompter reads it.
type fakePrompter struct {
	typed []string
	asked []string
}

func (f *fakePrompter) Confirm(question string) (bool, error) {
	f.asked = append(f.asked, question)
	if len(f.typed) == 0 {
		return cmdutil.ParseConfirm("", io.EOF)
	}
	line := f.typed[0]
	f.typed = f.typed[1:]
	return cmdutil.ParseConfirm(line, nil)
}

func (f *fakePrompter) Input(question string) (string, error) {
	f.asked = append(f.asked, question)
	if len(f.typed) == 0 {
		return cmdutil.ParseInput("", io.EOF)
	}
	line := f.typed[0]
	f.typed = f.typed[1:]
	return cmdutil.ParseInput(line, nil)
}

// answers are what an operator may type at a question: only yes proceeds.
var answers = []struct {
	name    string
	typed   []string // nil: input ends before any answer
	proceed bool
	refusal string // the error of a refusal
}{
	{"yes", []string{"yes\n"}, true, ""},
	{"no", []string{"no\n"}, false, "nothing changed: not confirmed"},
	{"empty", []string{"\n"}, false, "nothing changed: not confirmed"},
	{"EOF", nil, false, "nothing changed: no answer"},
	{"garbage", []string{"sure, why not\n"}, false, "nothing changed: not confirmed"},
}

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
		{"", io.EOF, false, ErrNoAnswer},
		{"", errors.New("read /dev/stdin: input/output error"), false, ErrNoAnswer},
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
	s := &IOStreams{In: strings.NewReader("yes\nno\n"), ErrOut: &errOut, InTTY: true}
	p := &TerminalPrompter{IO: s}
	first, err1 := p.Confirm("Move up to 3 messages from a\x1b[31m-dlq to a?")
	second, err2 := p.Confirm("again?")
	third, err3 := p.Confirm("and again?")
	if !first || err1 != nil || second || err2 != nil || third || !errors.Is(err3, ErrNoAnswer) {
		t.Fatalf("answers %v %v, %v %v, %v %v; want yes, no, no answer", first, err1, second, err2, third, err3)
	}
	if want := "Move up to 3 messages from a\\x1b[31m-dlq to a? [y/N] again? [y/N] and again? [y/N] "; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
	// Not a terminal: nobody is asked, nothing is read.
	in := strings.NewReader("yes\n")
	errOut.Reset()
	p = &TerminalPrompter{IO: &IOStreams{In: in, ErrOut: &errOut}}
	if ok, err := p.Confirm("q?"); ok || !errors.Is(err, ErrNoTerminal) || errOut.Len() != 0 || in.Len() != 4 {
		t.Errorf("without a terminal: %v, %v, stderr %q, %d bytes unread", ok, err, errOut.String(), in.Len())
	}
}

// confirm proceeds on an explicit yes or --yes only; every other answer
// is a refusal with exit 3. This is the test that fails if confirm, or
// the parsing under it, accepts any answer.
func TestConfirmProceedsOnlyOnYes(t *testing.T) {
	for _, a := range answers {
		t.Run(a.name, func(t *testing.T) {
			d, _, _ := testDeps(t, false)
			p := &fakePrompter{typed: a.typed}
			d.Prompt = p
			err := d.confirm("Move up to 3 messages from a-dlq to a?", false)
			if a.proceed {
				if err != nil {
					t.Fatalf("confirm = %v, want to proceed", err)
				}
			} else if exitCode(err, false) != ExitCheckFailed || err.Error() != a.refusal {
				t.Fatalf("confirm = %v (exit %d), want %q and exit 3", err, exitCode(err, false), a.refusal)
			}
			if len(p.asked) != 1 {
				t.Errorf("asked %q, want the one question", p.asked)
			}
		})
	}
	t.Run("--yes", func(t *testing.T) {
		d, _, _ := testDeps(t, false)
		p := &fakePrompter{}
		d.Prompt = p
		if err := d.confirm("q?", true); err != nil || len(p.asked) != 0 {
			t.Fatalf("confirm with --yes = %v, asked %q: want to proceed without asking", err, p.asked)
		}
	})
	t.Run("no terminal", func(t *testing.T) {
		d, _, errOut := testDeps(t, false)
		d.IO.In = strings.NewReader("yes\n")
		err := d.confirm("q?", false)
		if exitCode(err, false) != ExitCheckFailed || !strings.Contains(err.Error(), "no terminal to ask on; review the plan above and pass --yes") || errOut.Len() != 0 {
			t.Fatalf("confirm off a terminal = %v, stderr %q: want a refusal without a question", err, errOut)
		}
	})
	t.Run("terminal", func(t *testing.T) {
		d, _, errOut := testDeps(t, false)
		d.IO.InTTY = true
		d.IO.In = strings.NewReader("garbage\n")
		if err := d.confirm("q?", false); exitCode(err, false) != ExitCheckFailed || errOut.String() != "q? [y/N] " {
			t.Fatalf("confirm on a terminal = %v, stderr %q", err, errOut)
		}
	})
}
