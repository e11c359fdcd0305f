package browse

import (
	"strings"
)

// View draws the whole frame: a title, the screen's lines, a status line
// and the keys. Every line is cut to the terminal's width and the frame has
// exactly its height, so a small terminal (80×24) and a resize stay whole.
func (m *Model) View() string {
	w, h := m.width, m.height
	bodyH := h - 4
	var body []string
	focus := 0
	switch {
	case m.help:
		body = m.helpLines()
	case m.modal != nil:
		// The modal's end (a question, a refusal's last words) is in view
		// unless the operator scrolled up.
		body = m.modalLines(w)
		m.modal.up = min(m.modal.up, max(len(body)-bodyH, 0))
		focus = len(body) - 1 - m.modal.up
	default:
		body, focus = m.screenLines(w)
	}
	body = window(body, focus, bodyH)
	rule := m.st.dim(strings.Repeat(m.st.rule, w))
	out := make([]string, 0, h)
	out = append(out, m.line(m.titleLine(), w), rule)
	for _, l := range body {
		out = append(out, m.line(l, w))
	}
	for len(out) < h-2 {
		out = append(out, "")
	}
	out = append(out, rule, m.line(m.footer(), w))
	return strings.Join(out, "\n")
}

// line is one line of the frame: ASCII symbols with --ascii, cut to w.
func (m *Model) line(l string, w int) string {
	if m.opts.ASCII {
		l = asciiSymbols.Replace(l)
	}
	return m.fit(l, w)
}

// asciiSymbols are the few non-ASCII symbols the view and the commands'
// lines use, for terminals and fonts without them (--ascii).
var asciiSymbols = strings.NewReplacer("→", "->", "·", "|", "…", "~", "≤", "<=", "—", "-", "×", "x", "▏", "_")

// window is the part of lines, height long, that shows line focus.
func window(lines []string, focus, height int) []string {
	if height <= 0 {
		return nil
	}
	if len(lines) <= height {
		return lines
	}
	start := 0
	if focus >= height {
		start = focus - height + 1
	}
	start = min(start, len(lines)-height)
	return lines[start : start+height]
}

func (m *Model) titleLine() string {
	parts := []string{"mfdlq browse", "fleet"}
	for _, s := range m.stack[1:] {
		switch s {
		case screenDLQ:
			parts = append(parts, safe(m.dlq.queue))
		case screenGroup:
			parts = append(parts, "group "+safe(m.group.id))
		case screenMessage:
			if cur := m.currentMessage(); cur != nil {
				parts = append(parts, "message "+safe(cur.MessageId))
			}
		}
	}
	t := m.st.title(strings.Join(parts, m.st.sep))
	if m.redact {
		t += "  " + m.st.warn("[redacted]")
	}
	return t
}

func (m *Model) footer() string {
	switch {
	case m.filtering:
		return "/" + safe(m.filter) + m.st.caret + " (enter keeps, esc clears)"
	case m.modal != nil && m.modal.input != nil:
		return "> " + safe(m.modal.input.value) + m.st.caret + " (enter: plan and question · esc: nothing happens)"
	case m.modal != nil && m.modal.reply != nil:
		return "y: yes · n, enter or esc: no (nothing changes) · j/k scroll"
	}
	filter := ""
	if m.filter != "" {
		filter = "filter: " + safe(m.filter) + " · "
	}
	if m.status != "" {
		return filter + safe(m.status)
	}
	return filter + m.st.dim("j/k move · enter open · esc back · / filter · r refresh · ? help · q quit")
}

func (m *Model) helpLines() []string {
	out := []string{m.st.head("keys"), ""}
	for _, b := range Keys.HelpLines() {
		h := b.Help()
		out = append(out, m.row([]int{12}, h.Key, h.Desc))
	}
	return append(out, "", "Every action runs the command's own code: the same plan, the same question,",
		"the same incident events. Reads run in the background; keys never wait.")
}

func (m *Model) modalLines(w int) []string {
	md := m.modal
	inner := max(w-4, 10)
	bar := strings.Repeat(m.st.rule, inner+2)
	out := []string{m.st.head(safe(md.title)), bar}
	for _, l := range md.lines {
		for _, part := range wrap(safe(l), inner) {
			out = append(out, "  "+part)
		}
	}
	return append(out, bar)
}

// wrap cuts a sanitised line into pieces of at most w runes, at a space
// where there is one, so that a plan line or a body is read whole in a
// narrow terminal.
func wrap(s string, w int) []string {
	r := []rune(s)
	var out []string
	for len(r) > w {
		cut := w
		for i := w; i > w/2; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, string(r[:cut]))
		r = r[cut:]
		if len(r) > 0 && r[0] == ' ' {
			r = r[1:]
		}
	}
	return append(out, string(r))
}

// screenLines are the current screen's lines and the one to keep in view.
func (m *Model) screenLines(w int) ([]string, int) {
	switch m.top() {
	case screenDLQ:
		return m.dlqLines(w)
	case screenGroup:
		return m.groupLines(w)
	case screenMessage:
		return m.messageLines(w)
	}
	return m.fleetLines(w)
}

// mark is a row with the cursor's mark when selected.
func (m *Model) mark(line string, selected bool) string {
	if selected {
		return m.st.sel(m.st.cursor + line)
	}
	return "  " + line
}
