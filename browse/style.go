package browse

import (
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/mfdlq/mfdlq/untrusted"
)

// styles are the view's few looks. Without colour every one is the
// identity, so a frame is plain text (NO_COLOR, goldens).
type styles struct {
	title, head, sel, dim, bad, warn func(string) string
	// rule is the horizontal line, cursor the selected row's mark, more
	// the cut of a too-long line, bars the arrival chart's levels.
	rule, cursor, more, sep, caret string
	bars                           []rune
}

func newStyles(o Options) styles {
	s := styles{rule: "─", cursor: "> ", more: "…", sep: " › ", caret: "▏", bars: []rune(" ▁▂▃▄▅▆▇█")}
	if o.ASCII {
		s.rule, s.more, s.sep, s.caret, s.bars = "-", "~", " / ", "_", []rune(" .:-=+*#@")
	}
	id := func(x string) string { return x }
	s.title, s.head, s.sel, s.dim, s.bad, s.warn = id, id, id, id, id, id
	if !o.Color {
		return s
	}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	render := func(st lipgloss.Style) func(string) string { return func(x string) string { return st.Render(x) } }
	s.title = render(r.NewStyle().Bold(true).Foreground(lipgloss.Color("12")))
	s.head = render(r.NewStyle().Bold(true))
	s.sel = render(r.NewStyle().Reverse(true))
	s.dim = render(r.NewStyle().Foreground(lipgloss.Color("8")))
	s.bad = render(r.NewStyle().Foreground(lipgloss.Color("1")).Bold(true))
	s.warn = render(r.NewStyle().Foreground(lipgloss.Color("3")))
	return s
}

// safe is how every string from AWS, a message or a log reaches the frame:
// one line, control and bidi characters made visible (untrusted.Cell).
func safe(s string) string { return untrusted.Cell(s) }

// fit cuts a line (escape codes of our own styles allowed) to w cells.
func (m *Model) fit(line string, w int) string {
	if ansi.StringWidth(line) <= w {
		return line
	}
	return ansi.Truncate(line, w, m.st.more)
}

// pad fills plain text to w cells, cutting it when longer.
func (m *Model) pad(s string, w int) string {
	s = m.fit(s, w)
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// row joins cells padded to widths, separated by a space; the last cell
// takes what is left.
func (m *Model) row(widths []int, cells ...string) string {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i < len(widths) {
			b.WriteString(m.pad(c, widths[i]))
		} else {
			b.WriteString(c)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// chart draws counts as one line of bars.
func (m *Model) chart(counts []int) string {
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	var b strings.Builder
	for _, c := range counts {
		i := 0
		if top > 0 && c > 0 {
			i = 1 + c*(len(m.st.bars)-2)/top
		}
		b.WriteRune(m.st.bars[min(i, len(m.st.bars)-1)])
	}
	return b.String()
}
