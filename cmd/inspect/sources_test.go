package inspect

import (
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/sqsjson"
)

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
		{"one source", []sqsjson.Message{cmdtest.FromSource("a", orders), cmdtest.FromSource("b", orders)}, 1, false},
		{"none at all", []sqsjson.Message{cmdtest.FromSource("a", ""), cmdtest.FromSource("b", "")}, 0, false},
		{"two sources", []sqsjson.Message{cmdtest.FromSource("a", orders), cmdtest.FromSource("b", pay)}, 0, true},
		{"a source and a direct send", []sqsjson.Message{cmdtest.FromSource("a", orders), cmdtest.FromSource("b", "")}, 1, true},
		{"one seen, two by policy", []sqsjson.Message{cmdtest.FromSource("a", orders)}, 2, true},
		{"empty, two by policy", nil, 2, true},
	} {
		if got := severalSources(tc.msgs, tc.policy); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A source attribute is data like any other: in a file it can hold escape
// sequences, and they never reach the terminal raw in inspect's table.
func TestHostileSourceIsSanitised(t *testing.T) {
	hostile := "arn:aws:sqs:eu-west-1:123456789012:\x1b]0;pwned\x07orders\u202e"
	msgs := []sqsjson.Message{cmdtest.FromSource("a", hostile), cmdtest.FromSource("b", "")}
	for _, tty := range []bool{true, false} {
		d, out, _ := cmdtest.Deps(t, tty)
		o := &InspectOptions{deps: d}
		if err := o.render(msgs); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if cmdtest.Raw(got) || !strings.Contains(got, "SOURCE") || !strings.Contains(got, classify.NoSourceName) {
			t.Errorf("tty %v: inspect shows %q", tty, got)
		}
	}
}
