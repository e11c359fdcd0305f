package browse

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
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
	done   chan struct{} // closed when run has returned
}

// modal is a question (reply set), a line to type (input set) or a text
// to read.
type modal struct {
	title string
	lines []string
	reply chan bool
	input *input
	// up is how many lines the operator scrolled up from the modal's end:
	// a question opens on its last lines (the question itself), and a
	// plan longer than the terminal is read by scrolling up.
	up int
}

// input is a line the operator types in a modal: the redrive's flags.
type input struct {
	value  string
	submit func(value string) tea.Cmd
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
	a := &action{name: name, cancel: cancel, ch: make(chan tea.Msg, 8), done: make(chan struct{})}
	m.running = a
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
		close(a.done)
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
			// A refusal names its fix in a long line: shown whole, not cut
			// to the status line's width.
			m.status = msg.name + ": " + msg.err.Error()
			m.modal = &modal{title: msg.name + " stopped (esc closes)", lines: []string{msg.err.Error()}}
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
func (m *Model) modalKey(k tea.KeyMsg) tea.Cmd {
	md := m.modal
	if md.input != nil {
		return m.inputKey(k)
	}
	if md.reply == nil {
		if key.Matches(k, Keys.Back, Keys.Enter, Keys.Quit, Keys.Command, Keys.MessageID) {
			m.modal = nil
		}
		return nil
	}
	switch {
	case key.Matches(k, Keys.Up):
		md.up++
		return nil
	case key.Matches(k, Keys.Down):
		md.up = max(md.up-1, 0)
		return nil
	case key.Matches(k, Keys.Yes):
		md.reply <- true
	case key.Matches(k, Keys.No):
		md.reply <- false
	case key.Matches(k, Keys.Interrupt):
		md.reply <- false
		m.cancelAction()
	default:
		return nil
	}
	m.modal = nil
	return nil
}

// Wait blocks, up to limit, until the last action started has returned:
// the process must not end under a move that is still winding down (a
// signal ended the view; the move's context is cancelled with it).
func (m *Model) Wait(limit time.Duration) bool {
	if m.running == nil {
		return true
	}
	select {
	case <-m.running.done:
		return true
	case <-time.After(limit):
		return false
	}
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
	if m.action != nil {
		m.status = m.action.name + " is running: esc stops it"
		return nil
	}
	q, be := m.dlq.queue, m.be
	m.modal = &modal{title: "redrive group " + id + " of " + q,
		lines: []string{"mfdlq redrive --queue " + q + " --group " + id + " FLAGS", "",
			"--rate is required, as for the command (msg/s or max); --canary, --to, --fixed, --max … as documented.",
			"enter shows the command's plan and asks its question; esc: nothing happens."},
		input: &input{value: m.redriveFlags, submit: func(v string) tea.Cmd {
			flags, err := redriveFlags(v)
			if err != nil {
				m.status = "redrive: " + err.Error()
				return nil
			}
			m.redriveFlags = v
			return m.start("redrive "+id, func(ctx context.Context, io ActionIO) (string, error) {
				return be.Redrive(ctx, q, id, flags, io)
			})
		}}}
	return nil
}

// redriveFlags splits what the operator typed into flags. Those the view
// decides itself are refused: it names the queue and group, it always asks
// (no --yes), and the incident and the output format are its own.
func redriveFlags(v string) ([]string, error) {
	fields := strings.Fields(v)
	for _, f := range fields {
		name, _, _ := strings.Cut(f, "=")
		switch name {
		case "--queue", "--group", "--yes", "-y", "--output", "-o", "--incident", "--from-file", "--dry-run":
			return nil, fmt.Errorf("%s is the view's to decide; leave it out", name)
		}
	}
	return fields, nil
}

// inputKey edits the modal's line: enter submits, esc closes.
func (m *Model) inputKey(k tea.KeyMsg) tea.Cmd {
	in := m.modal.input
	switch k.Type {
	case tea.KeyEnter:
		m.modal = nil
		return in.submit(in.value)
	case tea.KeyEsc, tea.KeyCtrlC:
		m.modal = nil
	case tea.KeyBackspace:
		if r := []rune(in.value); len(r) > 0 {
			in.value = string(r[:len(r)-1])
		}
	case tea.KeyRunes, tea.KeySpace:
		if len(in.value) < 400 {
			in.value += string(k.Runes)
		}
	}
	return nil
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
		q = m.queueRef(rows[clamp(m.fleet.cursor, len(rows))])
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
