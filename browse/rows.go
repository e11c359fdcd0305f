package browse

import (
	"strings"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// matches tells whether the filter selects a row whose text is parts: a
// case-insensitive substring of the sanitised text, as the operator sees it.
func (m *Model) matches(parts ...string) bool {
	if m.filter == "" {
		return true
	}
	f := strings.ToLower(m.filter)
	for _, p := range parts {
		if strings.Contains(strings.ToLower(untrusted.Cell(p)), f) {
			return true
		}
	}
	return false
}

// fleetRows are the DLQs the filter selects, in ls's urgency order.
func (m *Model) fleetRows() []inventory.DLQ {
	if m.fleet.got == nil {
		return nil
	}
	var out []inventory.DLQ
	for _, d := range m.fleet.got.DLQs {
		if m.matches(d.Queue, d.Region) {
			out = append(out, d)
		}
	}
	return out
}

// groupList are classify's groups the filter selects, in its order.
func (m *Model) groupList() []classify.Group {
	if m.dlq.cls.got == nil || m.dlq.cls.got.Result == nil {
		return nil
	}
	var out []classify.Group
	for _, g := range m.dlq.cls.got.Result.Groups {
		if m.matches(g.ID, string(g.Verdict), g.Pattern, g.Fingerprint, g.Signature, g.Error, firstLine(g.Evidence)) {
			out = append(out, g)
		}
	}
	return out
}

func (m *Model) currentGroup() *classify.Group {
	gs := m.groupList()
	if len(gs) == 0 {
		return nil
	}
	g := gs[clamp(m.dlq.cursor, len(gs))]
	return &g
}

// groupOpen is the group the group screen shows.
func (m *Model) groupOpen() *classify.Group {
	if m.dlq.cls.got == nil || m.dlq.cls.got.Result == nil {
		return nil
	}
	g, _ := m.dlq.cls.got.Result.Group(m.group.id)
	return g
}

// groupRows are the indexes of the group's messages the filter selects.
func (m *Model) groupRows() []int {
	if m.group.got == nil {
		return nil
	}
	var out []int
	for i := range m.group.got.Messages {
		msg := &m.group.got.Messages[i]
		if m.matches(msg.MessageId, msg.Body) {
			out = append(out, i)
		}
	}
	return out
}

// currentMessage is the message the message screen shows, or nil.
func (m *Model) currentMessage() *sqsjson.Message {
	if m.group.got == nil || m.msg.index >= len(m.group.got.Messages) {
		return nil
	}
	return &m.group.got.Messages[m.msg.index]
}

func firstLine(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}
