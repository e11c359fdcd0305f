package note

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
)

// TestNoteFlags: argv to options, or the exact usage error (exit 2) before
// any AWS call.
func TestNoteFlags(t *testing.T) {
	tests := []struct {
		args    []string
		want    NoteOptions
		wantErr string
	}{
		{args: []string{"--queue", "orders-dlq", "investigating: the gateway's 503s"}, want: NoteOptions{Queue: "orders-dlq", Text: "investigating: the gateway's 503s"}},
		{args: []string{"--queue", "q", "--clear", "--yes"}, want: NoteOptions{Queue: "q", Clear: true, Yes: true}},
		{args: []string{"--queue", "q", "--dry-run", "handed to bo"}, want: NoteOptions{Queue: "q", Text: "handed to bo", DryRun: true}},
		{args: []string{"handed to bo"}, wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: []string{"--queue", "q", "--clear", "text"}, wantErr: "--clear removes the note: give no text with it"},
		{args: []string{"--queue", "q"}, wantErr: "the note is empty: give its text, or --clear to remove the note"},
		{args: []string{"--queue", "q", "two\nlines"}, wantErr: "the note holds a control character or a line break: a note is one line"},
		{args: []string{"--queue", "q", strings.Repeat("—", 30)}, wantErr: "the note is 270 characters once encoded, more than a queue tag's 256: letters, digits, spaces and _ . : / + - @ count 1, any other character 3 per UTF-8 byte (' is 3, — is 9); shorten it"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			newCmd := func(runF func(*NoteOptions) error) *cobra.Command { return NewCmdNote(d, runF) }
			cmdtest.CheckParse(t, newCmd, tc.args, tc.want, tc.wantErr, cmpopts.IgnoreUnexported(NoteOptions{}))
		})
	}
}

// TestNoteTakesOneText: two arguments are refused before the run.
func TestNoteTakesOneText(t *testing.T) {
	d, _, _ := cmdtest.Deps(t, false)
	called := false
	err := cmdtest.ParseWith(NewCmdNote(d, func(*NoteOptions) error { called = true; return nil }), []string{"--queue", "q", "a", "b"})
	if err == nil || called {
		t.Fatalf("note a b = %v, run called %v: want an error before the run", err, called)
	}
}
