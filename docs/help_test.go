package docs

import (
	"strings"
	"testing"
)

// TestLongHelp: a command's help says what it changes in AWS and gives
// examples, ends in one newline, and a command without a file is a panic
// that names the file, never an empty help.
func TestLongHelp(t *testing.T) {
	for _, c := range []string{"triage", "mcp", "inspect", "redrive"} {
		h := Long(c)
		if !strings.Contains(h, "What it changes in AWS") {
			t.Errorf("Long(%q) does not say what it changes in AWS:\n%s", c, h)
		}
		if !strings.HasSuffix(h, "\n") || strings.HasSuffix(h, "\n\n") {
			t.Errorf("Long(%q) does not end in one newline after its text: %q", c, h[max(0, len(h)-40):])
		}
	}
	if e := Example("redrive"); !strings.HasPrefix(e, "  mfdlq redrive ") || strings.HasSuffix(e, "\n") {
		t.Errorf("Example(redrive) = %q, want indented command lines and no final newline", e)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "help/no-such-command.txt") {
			t.Errorf("Long of an unknown command: recovered %v, want a panic naming help/no-such-command.txt", r)
		}
	}()
	Long("no-such-command")
}
