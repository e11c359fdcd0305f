// Package cmdtest holds what the tests of several command packages share:
// production Deps over buffers with a fixed clock, a fake prompter that
// answers as an operator types, and the flag-table checks. Only tests
// import it (internal/archtest refuses it in product code).
package cmdtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Now is the fixed instant of Deps' clock.
var Now = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

// Deps returns production Deps over buffers (stdout, stderr), with a fixed
// clock, table output and an incident directory of the test's own. The
// AWS clients are lazy: a test that makes no call needs no local AWS.
func Deps(t *testing.T, tty bool) (*cmdutil.Deps, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, OutTTY: tty, ErrTTY: tty, Color: tty}
	d := cmdutil.NewDeps(s, nil)
	d.Now = func() time.Time { return Now }
	d.Global.Output = "table"
	d.Global.Incident = t.TempDir()
	return d, &out, &errOut
}

// InterruptedIO makes s a terminal nobody types on, whose Interrupt has
// closed: a Ctrl-C arrived while the question waited.
func InterruptedIO(t *testing.T, s *cmdutil.IOStreams) {
	t.Helper()
	r, w := io.Pipe()
	t.Cleanup(func() { _ = w.Close() })
	stop := make(chan struct{})
	close(stop)
	s.In, s.InTTY, s.Interrupt = r, true, stop
}

// FakePrompter answers the questions of a run with lines an operator
// would type, in order; past the last one, input has ended. It replaces
// the terminal, not the meaning of an answer: a typed line is read as the
// TerminalPrompter reads it.
type FakePrompter struct {
	Typed []string
	Asked []string
}

// Confirm records the question and answers with the next typed line.
func (f *FakePrompter) Confirm(question string) (bool, error) {
	f.Asked = append(f.Asked, question)
	if len(f.Typed) == 0 {
		return cmdutil.ParseConfirm("", io.EOF)
	}
	line := f.Typed[0]
	f.Typed = f.Typed[1:]
	return cmdutil.ParseConfirm(line, nil)
}

// Input records the question and answers with the next typed line.
func (f *FakePrompter) Input(question string) (string, error) {
	f.Asked = append(f.Asked, question)
	if len(f.Typed) == 0 {
		return cmdutil.ParseInput("", io.EOF)
	}
	line := f.Typed[0]
	f.Typed = f.Typed[1:]
	return cmdutil.ParseInput(line, nil)
}

// Answer is what an operator may type at a question, and what follows.
type Answer struct {
	Name    string
	Typed   []string // nil: input ends before any answer
	Proceed bool
	Refusal string // the error of a refusal
}

// Answers are the answers every confirmation is tested with: only yes
// proceeds.
var Answers = []Answer{
	{"yes", []string{"yes\n"}, true, ""},
	{"no", []string{"no\n"}, false, "nothing changed: not confirmed"},
	{"empty", []string{"\n"}, false, "nothing changed: not confirmed"},
	{"EOF", nil, false, "nothing changed: no answer"},
	{"garbage", []string{"sure, why not\n"}, false, "nothing changed: not confirmed"},
}

// ParseWith runs c on args (its output discarded) and returns its error.
func ParseWith(c *cobra.Command, args []string) error {
	c.SetArgs(args)
	c.SetOut(&bytes.Buffer{})
	c.SetErr(&bytes.Buffer{})
	return c.Execute()
}

// CheckUsageErr fails t unless err is the usage error want (exit 2).
func CheckUsageErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want || cmdutil.ExitCode(err, false) != cmdutil.ExitUsage {
		t.Fatalf("err = %v (exit %d); want %q (exit 2)", err, cmdutil.ExitCode(err, false), want)
	}
}

// CheckParse runs newCmd on args with a capturing runF and checks one row
// of a flag table: the exact usage error when wantErr is set, else the
// parsed options (compared with cmp and opts).
func CheckParse[O any](t *testing.T, newCmd func(runF func(*O) error) *cobra.Command, args []string, want O, wantErr string, opts ...cmp.Option) {
	t.Helper()
	var got *O
	err := ParseWith(newCmd(func(o *O) error { got = o; return nil }), args)
	if wantErr != "" {
		CheckUsageErr(t, err, wantErr)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, *got, opts...); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}

// SeedDLQ creates a source queue and its DLQ (maxReceiveCount 4) on the
// local AWS and sends n JSON orders to the DLQ; it returns the DLQ's name.
func SeedDLQ(t *testing.T, n int) string {
	t.Helper()
	seed := localaws.NewSeeder(localaws.Config(t))
	dlq := localaws.UniqueName("orders-dlq")
	_, url, err := seed.CreatePair(context.Background(), localaws.UniqueName("orders"), dlq, 4)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for i := range n {
		bodies = append(bodies, fmt.Sprintf(`{"order_id":"o-%d","version":2}`, i))
	}
	if err := seed.Send(context.Background(), url, bodies, nil); err != nil {
		t.Fatal(err)
	}
	return dlq
}

// FromSource is a message a DLQ received from the source queue arn ("":
// no DeadLetterQueueSourceArn).
func FromSource(id, arn string) sqsjson.Message {
	m := sqsjson.Message{MessageId: id, Body: `{"version":2}`, Attributes: map[string]string{sqsjson.AttrSentTimestamp: "1795989840000"}}
	if arn != "" {
		m.Attributes[sqsjson.AttrDeadLetterQueueSourceArn] = arn
	}
	return m
}

// Raw tells whether a hostile test value's own bytes (an OSC sequence, the
// bell, a bidi override) reached the output; the renderer's colours may.
func Raw(s string) bool { return strings.Contains(s, "\x1b]") || strings.ContainsAny(s, "\x07\u202e") }
