package browse

import (
	"fmt"
	"strconv"
	"time"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// groupLines draw one group: classify's summary, its arrival chart and its
// messages from a harmless peek.
func (m *Model) groupLines(w int) ([]string, int) {
	var out []string
	if g := m.groupOpen(); g != nil {
		out = append(out, fmt.Sprintf("%s · %s · %s · %s", m.verdict(string(g.Verdict)), plural.Of(g.Count, "message"), safe(g.Pattern), safe(g.Envelope)),
			"fingerprint: "+safe(g.Fingerprint))
		if g.Signature != "" {
			out = append(out, "signature: "+safe(g.Signature)+" ("+safe(g.SignatureSource)+")")
		}
		if g.Error != "" {
			out = append(out, "error: "+safe(g.Error))
		}
		out = append(out, fmt.Sprintf("arrivals %s → %s", g.FirstSent.UTC().Format("01-02 15:04"), g.LastSent.UTC().Format("01-02 15:04 UTC")),
			"  |"+m.chart(g.Arrivals)+"|")
	}
	gd := m.group
	switch {
	case gd.busy && gd.fresh:
		return append(out, "", "peeking at the DLQ (VisibilityTimeout 5, nothing deleted)…"), 0
	case gd.busy:
		return append(out, "", "reading the incident's sample…"), 0
	case gd.err != nil:
		return append(out, "", m.st.bad("peek: "+safe(gd.err.Error())), "r reads again"), 0
	case gd.got == nil:
		return out, 0
	}
	out = append(out, "", fmt.Sprintf("%d of the %s of %s are in this group (r: a new peek)",
		len(gd.got.Messages), plural.Of(gd.got.Peeked, "message"), safe(gd.got.Source)))
	widths := []int{36, 20, 8, 6}
	out = append(out, m.st.head("  "+m.row(widths, "MESSAGE ID", "SENT", "RECEIVES", "SIZE", "PAYLOAD")))
	rows := m.groupRows()
	if len(rows) == 0 {
		out = append(out, "  (no message"+m.filterNote()+")")
	}
	focus := len(out)
	cur := clamp(gd.cursor, len(rows))
	for i, idx := range rows {
		if i == cur {
			focus = len(out)
		}
		msg := &gd.got.Messages[idx]
		out = append(out, m.mark(m.row(widths, safe(msg.MessageId), sent(msg), receives(msg), strconv.Itoa(len(msg.Body)),
			m.shown(payloadOf(msg))), i == cur))
	}
	out = append(out, m.st.dim("enter: the message · R: redrive this group · c: command line"))
	return out, focus
}

func sent(msg *sqsjson.Message) string {
	if t, ok := msg.SentTime(); ok {
		return t.UTC().Format(time.DateTime)
	}
	return "-"
}

func receives(msg *sqsjson.Message) string {
	if n, ok := msg.ReceiveCount(); ok {
		return strconv.Itoa(n)
	}
	return "-"
}

// payloadOf is the message's payload with its envelope unwrapped.
func payloadOf(msg *sqsjson.Message) string {
	env := envelope.Detect(msg)
	if env.Problem != "" {
		return env.Problem
	}
	return string(env.Payload)
}

// shown is data on its way to the frame: redacted when the operator asked
// (screen sharing), and always sanitised.
func (m *Model) shown(s string) string {
	return safe(m.redacted(s))
}
