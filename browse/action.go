package browse

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
)

// errCancelled is a question's answer when the action was stopped while it
// waited: never a yes.
var errCancelled = errors.New("cancelled before an answer")

// action is the one action that may run at a time.
type action struct {
	name   string
	cancel context.CancelFunc
	ch     chan tea.Msg
}

// modal is a question (reply set) or a text to read (reply nil).
type modal struct {
	title string
	lines []string
	reply chan bool
}

type (
	askMsg struct {
		plan     []string
		question string
		reply    chan bool
	}
	statusMsg struct{ line string }
	doneMsg   struct {
		name, text string
		err        error
	}
)

func listen(ch chan tea.Msg) tea.Cmd {
	return func() tea.Msg { return <-ch }
}

// start runs run in the background with its own context, so that esc or
// ctrl+c stops it as SIGINT stops the command, and returns the command
// that relays its news.
func (m *Model) start(name string, run func(ctx context.Context, io ActionIO) (string, error)) tea.Cmd {
	if m.action != nil {
		m.status = m.action.name + " is running: esc stops it"
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	a := &action{name: name, cancel: cancel, ch: make(chan tea.Msg, 8)}
	m.action, m.status = a, name+": starting"
	io := ActionIO{
		Ask: func(plan []string, q string) (bool, error) {
			reply := make(chan bool, 1)
			select {
			case a.ch <- askMsg{plan: plan, question: q, reply: reply}:
			case <-ctx.Done():
				return false, errCancelled
			}
			select {
			case yes := <-reply:
				return yes, nil
			case <-ctx.Done():
				return false, errCancelled
			}
		},
		Status: func(line string) {
			select { // progress may be dropped, never waited for
			case a.ch <- statusMsg{line: line}:
			default:
			}
		},
	}
	go func() {
		text, err := run(ctx, io)
		a.ch <- doneMsg{name: name, text: text, err: err}
	}()
	return listen(a.ch)
}

// actionNews takes a message of the running action.
func (m *Model) actionNews(msg tea.Msg) tea.Cmd {
	if m.action == nil {
		return nil
	}
	switch msg := msg.(type) {
	case askMsg:
		lines := append(append([]string{}, msg.plan...), "", msg.question+" [y/N]")
		m.modal = &modal{title: m.action.name, lines: lines, reply: msg.reply}
	case statusMsg:
		m.status = m.action.name + ": " + msg.line
	case doneMsg:
		m.action.cancel()
		m.action, m.modal = nil, nil
		if msg.err != nil {
			m.status = msg.name + ": " + msg.err.Error()
		} else {
			m.status = msg.name + ": " + msg.text
		}
		return nil
	default:
		return nil
	}
	return listen(m.action.ch)
}

// modalKey answers the question (y: yes; n, esc, enter: no, the default)
// or closes a text.
func (m *Model) modalKey(s string) tea.Cmd {
	md := m.modal
	if md.reply == nil {
		if s == "esc" || s == "enter" || s == "q" || s == "c" || s == "i" {
			m.modal = nil
		}
		return nil
	}
	switch s {
	case "y", "Y":
		md.reply <- true
	case "n", "N", "esc", "enter":
		md.reply <- false
	case "ctrl+c":
		md.reply <- false
		m.cancelAction()
	default:
		return nil
	}
	m.modal = nil
	return nil
}

func (m *Model) cancelAction() {
	if m.action != nil {
		m.action.cancel()
		m.status = m.action.name + ": stopping (as Ctrl-C stops the command)"
	}
}

// startRedrive opens the redrive of the group under the cursor (DLQ
// screen) or the open group.
func (m *Model) startRedrive() tea.Cmd {
	var id string
	switch m.top() {
	case screenDLQ:
		if g := m.currentGroup(); g != nil {
			id = g.ID
		}
	case screenGroup, screenMessage:
		id = m.group.id
	}
	if id == "" {
		m.status = "redrive: open a DLQ and choose a group first"
		return nil
	}
	q, be := m.dlq.queue, m.be
	return m.start("redrive "+id, func(ctx context.Context, io ActionIO) (string, error) {
		return be.Redrive(ctx, q, id, io)
	})
}

func (m *Model) startExport() tea.Cmd {
	if m.top() == screenFleet || m.dlq.queue == "" {
		m.status = "export: open a DLQ first"
		return nil
	}
	q, be := m.dlq.queue, m.be
	return m.start("export", func(ctx context.Context, io ActionIO) (string, error) {
		return be.Export(ctx, q, io)
	})
}

// showCommand shows the commands that do from a shell what this screen
// shows, ready to copy.
func (m *Model) showCommand() {
	var lines []string
	q := m.dlq.queue
	switch m.top() {
	case screenFleet:
		rows := m.fleetRows()
		if len(rows) == 0 {
			return
		}
		q = rows[clamp(m.fleet.cursor, len(rows))].Queue
		lines = []string{"mfdlq ls", "mfdlq contain --queue " + q}
	case screenDLQ:
		lines = []string{"mfdlq contain --queue " + q, "mfdlq classify --queue " + q}
		if g := m.currentGroup(); g != nil {
			lines = append(lines, "mfdlq redrive --queue "+q+" --group "+g.ID)
		}
	case screenGroup:
		lines = []string{"mfdlq inspect --queue " + q, "mfdlq redrive --queue " + q + " --group " + m.group.id}
	case screenMessage:
		if cur := m.currentMessage(); cur != nil {
			lines = []string{fmt.Sprintf("mfdlq logs --queue %s --log-group LOG_GROUP --message-id %s", q, cur.MessageId),
				"mfdlq redrive --queue " + q + " --group " + m.group.id}
		}
	}
	m.modal = &modal{title: "commands (select with the mouse to copy; esc closes)", lines: lines}
}

func (m *Model) showMessageID() {
	if m.top() != screenMessage {
		return
	}
	if cur := m.currentMessage(); cur != nil {
		m.modal = &modal{title: "MessageId (esc closes)", lines: []string{cur.MessageId}}
	}
}
