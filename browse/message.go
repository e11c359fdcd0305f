package browse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/redact"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// maxBodyLines bounds what a body contributes to the frame: a 1 MiB body
// pretty-printed is tens of thousands of lines, and each frame walks them.
const maxBodyLines = 2000

// redacted is s through the redact package when the operator turned
// redaction on (x), as a report would show it.
func (m *Model) redacted(s string) string {
	if !m.redact {
		return s
	}
	var r redact.Redactor
	return r.String(s)
}

// messageLines draw one message: its envelope, the payload pretty-printed,
// attributes, message attributes, the group's drift and, on l, its logs.
func (m *Model) messageLines(w int) ([]string, int) {
	msg := m.currentMessage()
	if msg == nil {
		return []string{"(the message is gone: esc)"}, 0
	}
	ready := m.msg.body != nil && m.msg.bodyKey == m.bodyKey()
	kind := "…"
	if ready {
		kind = m.msg.kind
	}
	out := []string{fmt.Sprintf("sent %s · receives %s · %d bytes · envelope %s", sent(msg), receives(msg), len(msg.Body), safe(kind))}
	if ready && m.msg.envErr != "" {
		out = append(out, m.st.bad("error: ")+m.shown(m.msg.envErr))
	}
	if m.msg.showLogs {
		out = append(out, "")
		out = append(out, m.logLines()...)
	}
	out = append(out, "", m.st.head("payload")+m.st.dim(" (envelope unwrapped; x: redaction)"))
	if !ready {
		out = append(out, fmt.Sprintf("  preparing the payload (%d bytes)…", len(msg.Body)))
	} else {
		out = append(out, m.msg.body...)
	}
	out = append(out, "", m.st.head("attributes"))
	out = append(out, m.attrLines(msg)...)
	if g := m.groupOpen(); g != nil && len(g.Drift) > 0 {
		out = append(out, "", m.st.head("drift from the baseline (classify)"))
		for _, d := range g.Drift {
			out = append(out, "  "+safe(d.Text))
		}
	}
	out = append(out, "", m.st.dim("j/k scroll · l: logs by MessageId · i: MessageId · x: redaction · R: redrive the group"))
	return out[min(m.msg.scroll, len(out)-1):], 0
}

// bodyKey names what the payload's lines were drawn for: the message, the
// width, redaction.
func (m *Model) bodyKey() [3]int {
	key := [3]int{m.msg.index, m.width, 0}
	if m.redact {
		key[2] = 1
	}
	return key
}

type bodyMsg struct {
	key          [3]int
	lines        []string
	kind, envErr string
}

// prepareBody draws the payload off the UI loop: a 1 MiB body takes a
// second to redact, and a key must be answered within 200 ms meanwhile.
func (m *Model) prepareBody() tea.Cmd {
	msg := m.currentMessage()
	if m.top() != screenMessage || msg == nil || (m.msg.body != nil && m.msg.bodyKey == m.bodyKey()) {
		return nil
	}
	key, body, redacting, width, st := m.bodyKey(), *msg, m.redact, m.width, m.st
	return func() tea.Msg {
		env := envelope.Detect(&body)
		kind := string(env.Kind)
		if env.Wraps != "" {
			kind += "/" + string(env.Wraps)
		}
		return bodyMsg{key: key, lines: bodyLines(&body, env, redacting, width, st), kind: kind, envErr: env.Error}
	}
}

// bodyLines is the payload (envelope unwrapped) pretty-printed when it is
// JSON, redacted when asked, each line sanitised, bounded by maxBodyLines.
func bodyLines(msg *sqsjson.Message, env envelope.Envelope, redacting bool, width int, st styles) []string {
	text := string(env.Payload)
	if env.Problem != "" {
		text = msg.Body
	}
	if env.PayloadJSON {
		var b bytes.Buffer
		if json.Indent(&b, env.Payload, "", "  ") == nil {
			text = b.String()
		}
	}
	if redacting {
		var r redact.Redactor
		text = r.String(text)
	}
	lines := strings.Split(untrusted.Block(text), "\n")
	out := make([]string, 0, min(len(lines), maxBodyLines)+1)
	for i, l := range lines {
		if len(out) >= maxBodyLines {
			out = append(out, st.dim(fmt.Sprintf("  … %d more lines (mfdlq inspect --out FILE has it whole)", len(lines)-i)))
			break
		}
		for _, part := range wrap(strings.ReplaceAll(l, "\t", "  "), max(width-4, 16)) {
			out = append(out, "  "+part)
		}
	}
	return out
}

func (m *Model) attrLines(msg *sqsjson.Message) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(msg.Attributes)) {
		out = append(out, "  "+safe(k)+": "+m.shown(attrText(k, msg.Attributes[k])))
	}
	if len(msg.MessageAttributes) > 0 {
		out = append(out, "", m.st.head("message attributes"))
		keys := slices.Sorted(maps.Keys(msg.MessageAttributes))
		for _, k := range keys {
			v := msg.MessageAttributes[k]
			val := fmt.Sprintf("(%d bytes binary)", len(v.BinaryValue))
			if v.StringValue != nil {
				val = m.shown(*v.StringValue)
			}
			out = append(out, "  "+safe(k)+" ("+safe(v.DataType)+"): "+val)
		}
	}
	return out
}

// logLines are the logs step's story of this message.
func (m *Model) logLines() []string {
	s := m.msg
	switch {
	case s.logs.busy:
		return []string{"logs: searching the consumer's logs by MessageId…"}
	case s.logs.err != nil:
		return []string{m.st.bad("logs: " + safe(s.logs.err.Error()))}
	case s.logs.got == nil:
		return nil
	}
	l := s.logs.got
	out := []string{m.st.head("logs") + fmt.Sprintf(" (%s, %d found of %d)", safe(string(l.Method)), l.Found, l.Searched)}
	for _, r := range l.Messages {
		if !r.Found {
			out = append(out, "  no log line names "+safe(r.MessageID))
			continue
		}
		out = append(out, "  "+safe(r.LogGroup)+" "+safe(r.LogStream)+" "+safe(r.Timestamp))
		if r.Exception != "" {
			out = append(out, "  "+m.st.bad("exception: ")+m.shown(r.Exception))
		}
		for _, l := range r.Lines {
			out = append(out, "    "+m.shown(l))
		}
	}
	return out
}

// attrText is an attribute's value as a person reads it: SQS's
// *Timestamp attributes are epoch milliseconds ("1796616871543"), shown
// as the UTC time they are; every other value as it is.
func attrText(key, v string) string {
	if !strings.HasSuffix(key, "Timestamp") {
		return v
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms <= 0 {
		return v
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05 UTC")
}
