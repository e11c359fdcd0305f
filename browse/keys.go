package browse

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// KeyMap holds every key the view answers as a bubbles key.Binding: the
// keys and their help text in one declaration, matched with key.Matches.
// A binding without help (Bottom, Interrupt) is shown by its sibling's
// line (Top's "g / G", Quit's "q / ctrl+c").
type KeyMap struct {
	Down, Up, Top, Bottom               key.Binding
	Enter, Back, Filter, Refresh        key.Binding
	Redrive, Export, Command, MessageID key.Binding
	Logs, Redact, Help, Quit, Interrupt key.Binding
	Yes, No                             key.Binding // a question's answers
}

// Keys is the view's key map; Keys.HelpLines is the help screen and
// docs/browse.md.
var Keys = KeyMap{
	Down:      key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j / down", "next row")),
	Up:        key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k / up", "previous row")),
	Top:       key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g / G", "first / last row")),
	Bottom:    key.NewBinding(key.WithKeys("G", "end")),
	Enter:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open: DLQ → groups → messages → message")),
	Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back out (or cancel the running action, or answer no)")),
	Filter:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter the rows (enter keeps it, esc clears it)")),
	Refresh:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "read this screen again (a group: a new peek; the fleet also every 30 s)")),
	Redrive:   key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "redrive this group: type its flags (--rate …), then the command's plan and question")),
	Export:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "export this DLQ into the incident directory")),
	Command:   key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "show a ready mfdlq command line for this screen")),
	MessageID: key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "show the MessageId (message screen)")),
	Logs:      key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "the consumer's logs for this message (logs by MessageId)")),
	Redact:    key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "redaction on/off (for screen sharing)")),
	Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "this help")),
	Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q / ctrl+c", "quit (while an action runs: ctrl+c stops it, q waits for that)")),
	Interrupt: key.NewBinding(key.WithKeys("ctrl+c")),
	Yes:       key.NewBinding(key.WithKeys("y", "Y")),
	No:        key.NewBinding(key.WithKeys("n", "N", "esc", "enter")),
}

// HelpLines lists the bindings with help text, in the help screen's order.
func (k KeyMap) HelpLines() []key.Binding {
	return []key.Binding{k.Down, k.Up, k.Top, k.Enter, k.Back, k.Filter, k.Refresh, k.Redrive, k.Export,
		k.Command, k.MessageID, k.Logs, k.Redact, k.Help, k.Quit}
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
	switch {
	case m.modal != nil:
		return m.modalKey(k)
	case key.Matches(k, Keys.Interrupt):
		if m.action != nil {
			m.cancelAction()
			return nil
		}
		return tea.Quit
	case m.filtering:
		m.filterKey(k)
		return nil
	case m.help:
		if key.Matches(k, Keys.Help, Keys.Back, Keys.Quit) {
			m.help = false
		}
		return nil
	}
	return m.screenKey(k)
}

// screenKey handles a key on a screen with no modal, filter or help open.
func (m *Model) screenKey(k tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(k, Keys.Quit):
		if m.action != nil {
			// Quitting mid-move would end the process under it: stop it
			// first, as Ctrl-C stops the command, and see it end.
			m.status = m.action.name + " is running: esc or ctrl+c stops it first"
			return nil
		}
		return tea.Quit
	case key.Matches(k, Keys.Help):
		m.help = true
	case key.Matches(k, Keys.Down):
		m.move(1)
	case key.Matches(k, Keys.Up):
		m.move(-1)
	case key.Matches(k, Keys.Top):
		m.move(-1 << 30)
	case key.Matches(k, Keys.Bottom):
		m.move(1 << 30)
	case key.Matches(k, Keys.Filter):
		m.filtering, m.filter = true, ""
	case key.Matches(k, Keys.Back):
		return m.back()
	case key.Matches(k, Keys.Enter):
		return m.enter()
	case key.Matches(k, Keys.Refresh):
		return m.refresh()
	case key.Matches(k, Keys.Redact):
		m.redact = !m.redact
		return m.prepareBody()
	case key.Matches(k, Keys.Logs):
		if m.top() == screenMessage {
			m.msg.showLogs = true
			return m.loadLogs()
		}
	case key.Matches(k, Keys.Redrive):
		return m.startRedrive()
	case key.Matches(k, Keys.Export):
		return m.startExport()
	case key.Matches(k, Keys.Command):
		m.showCommand()
	case key.Matches(k, Keys.MessageID):
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
		if q != m.dlq.queue || (m.dlq.cls.got == nil && !m.dlq.cls.busy) {
			m.dlq = dlqState{queue: q}
			return tea.Batch(m.loadDLQ()...)
		}
	case screenDLQ:
		g := m.currentGroup()
		if g == nil {
			return nil
		}
		m.push(screenGroup)
		if g.ID != m.group.id || m.group.got == nil {
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
