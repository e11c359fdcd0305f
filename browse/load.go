package browse

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/logsearch"
)

// The answers of the reads. Each names what it was read for, so that an
// answer that arrives after the operator moved on is dropped, not shown
// under another queue.
type (
	fleetMsg struct {
		seq  int
		data *Fleet
		err  error
	}
	containMsg struct {
		queue string
		res   *contain.Result
		err   error
	}
	classifyMsg struct {
		queue string
		res   *Classified
		err   error
	}
	groupMsg struct {
		queue, group string
		res          *GroupMessages
		err          error
	}
	logsMsg struct {
		messageID string
		res       *logsearch.Result
		err       error
	}
)

func (m *Model) loadFleet() tea.Cmd {
	m.fleet.loading = true
	m.fleet.seq++
	seq, ctx, be := m.fleet.seq, m.ctx, m.be
	return func() tea.Msg {
		f, err := be.Fleet(ctx)
		return fleetMsg{seq: seq, data: f, err: err}
	}
}

func (m *Model) loadDLQ() []tea.Cmd {
	q, ctx, be := m.dlq.queue, m.ctx, m.be
	m.dlq.containBusy, m.dlq.clsBusy = true, true
	m.dlq.contain, m.dlq.containErr, m.dlq.cls, m.dlq.clsErr = nil, nil, nil, nil
	return []tea.Cmd{
		func() tea.Msg {
			r, err := be.Contain(ctx, q)
			return containMsg{queue: q, res: r, err: err}
		},
		func() tea.Msg {
			r, err := be.Classify(ctx, q)
			return classifyMsg{queue: q, res: r, err: err}
		},
	}
}

func (m *Model) loadGroup(fresh bool) tea.Cmd {
	q, g, ctx, be := m.dlq.queue, m.group.id, m.ctx, m.be
	m.group.busy, m.group.data, m.group.err, m.group.fresh = true, nil, nil, fresh
	return func() tea.Msg {
		r, err := be.Group(ctx, q, g, fresh)
		return groupMsg{queue: q, group: g, res: r, err: err}
	}
}

func (m *Model) loadLogs() tea.Cmd {
	cur := m.currentMessage()
	if cur == nil || m.msg.logsBusy {
		return nil
	}
	q, id, ctx, be := m.dlq.queue, cur.MessageId, m.ctx, m.be
	m.msg.logsBusy, m.msg.logs, m.msg.logsErr = true, nil, nil
	return func() tea.Msg {
		r, err := be.Logs(ctx, q, id)
		return logsMsg{messageID: id, res: r, err: err}
	}
}

// loaded takes the answer of a read, or an action's news.
func (m *Model) loaded(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case fleetMsg:
		if msg.seq == m.fleet.seq {
			m.fleet.loading = false
			m.fleet.err = msg.err
			if msg.err == nil {
				m.fleet.data = msg.data
			}
		}
	case containMsg:
		if msg.queue == m.dlq.queue {
			m.dlq.containBusy, m.dlq.contain, m.dlq.containErr = false, msg.res, msg.err
		}
	case classifyMsg:
		if msg.queue == m.dlq.queue {
			m.dlq.clsBusy, m.dlq.cls, m.dlq.clsErr = false, msg.res, msg.err
		}
	case groupMsg:
		if msg.queue == m.dlq.queue && msg.group == m.group.id {
			m.group.busy, m.group.data, m.group.err = false, msg.res, msg.err
		}
	case logsMsg:
		if cur := m.currentMessage(); cur != nil && cur.MessageId == msg.messageID {
			m.msg.logsBusy, m.msg.logs, m.msg.logsErr = false, msg.res, msg.err
		}
	case bodyMsg:
		if msg.key == m.bodyKey() {
			m.msg.body, m.msg.bodyKey, m.msg.kind, m.msg.envErr = msg.lines, msg.key, msg.kind, msg.envErr
		}
	default:
		return m.actionNews(msg)
	}
	return nil
}
