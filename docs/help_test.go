package docs

import (
	"strings"
	"testing"
)

// TestLongHelp: each command that takes its help from here has one, and a
// command without a file gets "" (its own Long then), never a panic.
func TestLongHelp(t *testing.T) {
	for _, c := range []string{"triage", "mcp"} {
		h := LongHelp(c)
		if !strings.Contains(h, "What it changes in AWS") || !strings.Contains(h, "Examples:") {
			t.Errorf("LongHelp(%q) lacks what it changes in AWS or its examples:\n%s", c, h)
		}
	}
	if h := LongHelp("no-such-command"); h != "" {
		t.Errorf("LongHelp of an unknown command = %q, want \"\"", h)
	}
}
