package cmd

import (
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/sqsjson"
)

func fromSource(id, arn string) sqsjson.Message {
	m := sqsjson.Message{MessageId: id, Body: `{"version":2}`, Attributes: map[string]string{sqsjson.AttrSentTimestamp: "1795989840000"}}
	if arn != "" {
		m.Attributes[sqsjson.AttrDeadLetterQueueSourceArn] = arn
	}
	return m
}

// The SOURCE column appears when the messages show two sources (none
// counting as one) or the redrive policies name two; else never.
func TestSeveralSources(t *testing.T) {
	orders, pay := "arn:aws:sqs:eu-west-1:123456789012:orders", "arn:aws:sqs:eu-west-1:123456789012:payments"
	for _, tc := range []struct {
		name   string
		msgs   []sqsjson.Message
		policy int
		want   bool
	}{
		{"one source", []sqsjson.Message{fromSource("a", orders), fromSource("b", orders)}, 1, false},
		{"none at all", []sqsjson.Message{fromSource("a", ""), fromSource("b", "")}, 0, false},
		{"two sources", []sqsjson.Message{fromSource("a", orders), fromSource("b", pay)}, 0, true},
		{"a source and a direct send", []sqsjson.Message{fromSource("a", orders), fromSource("b", "")}, 1, true},
		{"one seen, two by policy", []sqsjson.Message{fromSource("a", orders)}, 2, true},
		{"empty, two by policy", nil, 2, true},
	} {
		if got := severalSources(tc.msgs, tc.policy); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A source attribute is data like any other: in a file it can hold escape
// sequences, and they never reach the terminal raw in inspect's table
// (classify's groups: cmd/classify).
func TestHostileSourceIsSanitised(t *testing.T) {
	hostile := "arn:aws:sqs:eu-west-1:123456789012:\x1b]0;pwned\x07orders\u202e"
	msgs := []sqsjson.Message{fromSource("a", hostile), fromSource("b", "")}
	for _, tty := range []bool{true, false} {
		d, out, _ := testDeps(t, tty)
		o := &inspectOptions{deps: d}
		if err := o.render(msgs); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if raw(got) || !strings.Contains(got, "SOURCE") || !strings.Contains(got, classify.NoSourceName) {
			t.Errorf("tty %v: inspect shows %q", tty, got)
		}
	}
}

// raw tells whether the hostile source's own bytes (its OSC sequence, the
// bell, the bidi override) reached the output; the renderer's colours may.
func raw(s string) bool { return strings.Contains(s, "\x1b]") || strings.ContainsAny(s, "\x07\u202e") }
