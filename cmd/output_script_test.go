package cmd

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdMaxWidth: max-width N stdout|stderr|FILE fails when a line is wider
// than N terminal columns (escape codes take none): what a terminal of N
// columns would wrap, breaking a table's borders.
func cmdMaxWidth(ts *testscript.TestScript, _ bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: max-width N stdout|stderr|FILE")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n <= 0 {
		ts.Fatalf("max-width: %q is not a width", args[0])
	}
	for i, l := range strings.Split(ts.ReadFile(args[1]), "\n") {
		if w := lipgloss.Width(l); w > n {
			ts.Fatalf("%s line %d is %d columns wide, over %d: %q", args[1], i+1, w, n, l)
		}
	}
}
