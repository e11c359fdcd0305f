package changes

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/untrusted"
)

// A trail's fields are strangers' data of any size (a username, a
// resource of hundreds of kilobytes): the terminal shows at most maxCell
// bytes of each, and maxLine of a line, as every other command does;
// changes.json and the report keep them whole (the report bounds its own).
const (
	maxCell = 200
	maxLine = 600
)

// short is s cut to maxCell bytes for the terminal.
func short(s string) string { return untrusted.Shorten(s, maxCell) }

// cutToWidth cuts each line of s wider than the terminal with "…": a chart
// wrapped would no longer be one.
func cutToWidth(d *cmdutil.Deps, s string) string {
	width := d.TermWidth()
	if !d.IO.OutTTY || width <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if lipgloss.Width(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	return strings.Join(lines, "\n")
}
