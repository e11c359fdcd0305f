package cmd

import (
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// A source attribute is data like any other: in a file it can hold escape
// sequences, and they never reach the terminal raw in classify's groups
// (cmd/inspect tests its table).
func TestHostileSourceIsSanitised(t *testing.T) {
	hostile := "arn:aws:sqs:eu-west-1:123456789012:\x1b]0;pwned\x07orders\u202e"
	msgs := []sqsjson.Message{cmdtest.FromSource("a", hostile), cmdtest.FromSource("b", "")}
	for _, tty := range []bool{true, false} {
		d, out, _ := testDeps(t, tty)
		c := classify.New(classify.Options{})
		for i := range msgs {
			if err := c.Add(&msgs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := (&classifyOptions{deps: d}).render(c.Result()); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if raw(got) || !strings.Contains(got, `\x1b]0;pwned\x07orders\u202e`) {
			t.Errorf("tty %v: classify shows %q", tty, got)
		}
	}
}

// raw is cmdtest.Raw.
func raw(s string) bool { return cmdtest.Raw(s) }
