package browse

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/logsearch"
)

// read is one read a screen shows: its answer, its error, and whether it
// is under way.
type read[T any] struct {
	got  *T
	err  error
	busy bool
}

// answer is a read's answer. It names what it was read for (key), so that
// an answer that arrives after the operator moved on is dropped, not shown
// under another queue.
type answer[K comparable, T any] struct {
	key K
	res *T
	err error
}

// groupKey is what a group's messages are read for.
type groupKey struct{ queue, group string }

func (m *Model) loadFleet() tea.Cmd {
	m.fleet.busy = true
	m.fleet.seq++
	seq, ctx, be := m.fleet.seq, m.ctx, m.be
	return func() tea.Msg {
		f, err := be.Fleet(ctx)
		return answer[int, Fleet]{seq, f, err}
	}
}

func (m *Model) loadDLQ() []tea.Cmd {
	q, ctx, be := m.dlq.queue, m.ctx, m.be
	m.dlq.contain, m.dlq.cls = read[contain.Result]{busy: true}, read[Classified]{busy: true}
	return []tea.Cmd{
		func() tea.Msg {
			r, err := be.Contain(ctx, q)
			return answer[string, contain.Result]{q, r, err}
		},
		func() tea.Msg {
			r, err := be.Classify(ctx, q)
			return answer[string, Classified]{q, r, err}
		},
	}
}

func (m *Model) loadGroup(fresh bool) tea.Cmd {
	q, g, ctx, be := m.dlq.queue, m.group.id, m.ctx, m.be
	m.group.read, m.group.fresh = read[GroupMessages]{busy: true}, fresh
	return func() tea.Msg {
		r, err := be.Group(ctx, q, g, fresh)
		return answer[groupKey, GroupMessages]{groupKey{q, g}, r, err}
	}
}

func (m *Model) loadLogs() tea.Cmd {
	cur := m.currentMessage()
	if cur == nil || m.msg.logs.busy {
		return nil
	}
	q, id, ctx, be := m.dlq.queue, cur.MessageId, m.ctx, m.be
	m.msg.logs = read[logsearch.Result]{busy: true}
	return func() tea.Msg {
		r, err := be.Logs(ctx, q, id)
		return answer[string, logsearch.Result]{id, r, err}
	}
}

// loaded takes the answer of a read, or an action's news.
func (m *Model) loaded(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case answer[int, Fleet]:
		if msg.key == m.fleet.seq {
			m.fleet.busy, m.fleet.err = false, msg.err
			if msg.err == nil {
				m.fleet.got = msg.res
			}
		}
	case answer[string, contain.Result]:
		if msg.key == m.dlq.queue {
			m.dlq.contain = read[contain.Result]{msg.res, msg.err, false}
		}
	case answer[string, Classified]:
		if msg.key == m.dlq.queue {
			m.dlq.cls = read[Classified]{msg.res, msg.err, false}
		}
	case answer[groupKey, GroupMessages]:
		if msg.key == (groupKey{m.dlq.queue, m.group.id}) {
			m.group.read = read[GroupMessages]{msg.res, msg.err, false}
		}
	case answer[string, logsearch.Result]:
		if cur := m.currentMessage(); cur != nil && cur.MessageId == msg.key {
			m.msg.logs = read[logsearch.Result]{msg.res, msg.err, false}
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
