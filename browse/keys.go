package browse

import (
	tea "github.com/charmbracelet/bubbletea"
)

// Keys lists every key the view answers, for the help screen and
// docs/browse.md; the order is the help's.
var Keys = [][2]string{
	{"j / down", "next row"},
	{"k / up", "previous row"},
	{"g / G", "first / last row"},
	{"enter", "open: DLQ → groups → messages → message"},
	{"esc", "back out (or cancel the running action, or answer no)"},
	{"/", "filter the rows (enter keeps it, esc clears it)"},
	{"r", "read this screen again (a group: a new peek; the fleet also every 30 s)"},
	{"R", "redrive this group: type its flags (--rate …), then the command's plan and question"},
	{"e", "export this DLQ into the incident directory"},
	{"c", "show a ready mfdlq command line for this screen"},
	{"i", "show the MessageId (message screen)"},
	{"l", "the consumer's logs for this message (logs by MessageId)"},
	{"x", "redaction on/off (for screen sharing)"},
	{"?", "this help"},
	{"q / ctrl+c", "quit (while an action runs: ctrl+c stops it, q waits for that)"},
}

// key handles one keypress. It never waits for a read: reads are started
// as commands and their answers come back as messages.
func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	typing := m.filtering || (m.modal != nil && m.modal.input != nil)
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 && !typing && !k.Paste {
		// Keys typed faster than the terminal is read (over SSH, or a
		// script) arrive as one message: each is its own key.
		var cmds []tea.Cmd
		for _, r := range k.Runes {
			cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}))
		}
		return tea.Batch(cmds...)
	}
	s := k.String()
	switch {
	case m.modal != nil:
		return m.modalKey(k)
	case s == "ctrl+c":
		if m.action != nil {
			m.cancelAction()
			return nil
		}
		return tea.Quit
	case m.filtering:
		m.filterKey(k)
		return nil
	case m.help:
		if s == "?" || s == "esc" || s == "q" {
			m.help = false
		}
		return nil
	}
	switch s {
	case "q":
		if m.action != nil {
			// Quitting mid-move would end the process under it: stop it
			// first, as Ctrl-C stops the command, and see it end.
			m.status = m.action.name + " is running: esc or ctrl+c stops it first"
			return nil
		}
		return tea.Quit
	case "?":
		m.help = true
	case "j", "down":
		m.move(1)
	case "k", "up":
		m.move(-1)
	case "g", "home":
		m.move(-1 << 30)
	case "G", "end":
		m.move(1 << 30)
	case "/":
		m.filtering, m.filter = true, ""
	case "esc":
		return m.back()
	case "enter":
		return m.enter()
	case "r":
		return m.refresh()
	case "x":
		m.redact = !m.redact
		return m.prepareBody()
	case "l":
		if m.top() == screenMessage {
			m.msg.showLogs = true
			return m.loadLogs()
		}
	case "R":
		return m.startRedrive()
	case "e":
		return m.startExport()
	case "c":
		m.showCommand()
	case "i":
		m.showMessageID()
	}
	return nil
}

func (m *Model) filterKey(k tea.KeyMsg) {
	switch k.Type {
	case tea.KeyEnter:
		m.filtering = false
	case tea.KeyEsc:
		m.filtering, m.filter = false, ""
	case tea.KeyBackspace:
		if r := []rune(m.filter); len(r) > 0 {
			m.filter = string(r[:len(r)-1])
		}
	case tea.KeyRunes, tea.KeySpace:
		if len(m.filter) < 80 {
			m.filter += string(k.Runes)
		}
	}
	m.setCursor(0)
}

func (m *Model) back() tea.Cmd {
	switch {
	case m.action != nil:
		m.cancelAction()
	case m.filter != "":
		m.filter = ""
	case m.top() == screenMessage && m.msg.showLogs:
		m.msg.showLogs = false
	default:
		m.pop()
	}
	return nil
}

func (m *Model) enter() tea.Cmd {
	switch m.top() {
	case screenFleet:
		rows := m.fleetRows()
		if len(rows) == 0 {
			return nil
		}
		q := m.queueRef(rows[clamp(m.fleet.cursor, len(rows))])
		m.push(screenDLQ)
		if q != m.dlq.queue || (m.dlq.cls == nil && !m.dlq.clsBusy) {
			m.dlq = dlqState{queue: q}
			return tea.Batch(m.loadDLQ()...)
		}
	case screenDLQ:
		g := m.currentGroup()
		if g == nil {
			return nil
		}
		m.push(screenGroup)
		if g.ID != m.group.id || m.group.data == nil {
			m.group = groupState{id: g.ID}
			return m.loadGroup(false)
		}
	case screenGroup:
		rows := m.groupRows()
		if len(rows) == 0 {
			return nil
		}
		m.msg = msgState{index: rows[clamp(m.group.cursor, len(rows))]}
		m.push(screenMessage)
		return m.prepareBody()
	}
	return nil
}

func (m *Model) refresh() tea.Cmd {
	switch m.top() {
	case screenFleet:
		return m.loadFleet()
	case screenDLQ:
		return tea.Batch(m.loadDLQ()...)
	case screenGroup:
		return m.loadGroup(true)
	case screenMessage:
		if m.msg.showLogs {
			return m.loadLogs()
		}
	}
	return nil
}

// move moves the cursor of the current list by d rows, within bounds.
func (m *Model) move(d int) {
	switch m.top() {
	case screenFleet:
		m.fleet.cursor = clamp(m.fleet.cursor+d, len(m.fleetRows()))
	case screenDLQ:
		m.dlq.cursor = clamp(m.dlq.cursor+d, len(m.groupList()))
	case screenGroup:
		m.group.cursor = clamp(m.group.cursor+d, len(m.groupRows()))
	case screenMessage:
		m.msg.scroll = max(0, min(m.msg.scroll+d, 1<<20))
	}
}

func (m *Model) setCursor(i int) {
	switch m.top() {
	case screenFleet:
		m.fleet.cursor = i
	case screenDLQ:
		m.dlq.cursor = i
	case screenGroup:
		m.group.cursor = i
	}
}

// clamp keeps i within a list of n rows (0 for an empty one).
func clamp(i, n int) int {
	if i >= n {
		i = n - 1
	}
	return max(i, 0)
}
