package cmdutil

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// --key, the consumer's idempotency key, as inspect and classify count it
// and redrive --dedupe moves by it.

// KeyHelp is --key's help, shared by inspect, classify and redrive.
const KeyHelp = `the consumer's idempotency key, a jq expression over the payload (inside an SNS or EventBridge envelope, the inner message), e.g. '"cobro:" + .order_id': count the messages that share one`

// PayloadOf is the payload a --key reads: what d (inspect's and
// classify's --payload) finds, or envelope.Detect's without one — the
// inner message of an SNS or EventBridge envelope, as the mover and
// --transform see it.
func PayloadOf(d *envelope.Detector) dedupe.Payload {
	return func(m *sqsjson.Message) ([]byte, bool) {
		env := d.Detect(m) // a nil *Detector detects strictly
		return env.Payload, env.PayloadJSON
	}
}

// PrintKeyDuplicates shows what a --key tally found (inspect, classify):
// one line of counts on stderr, then the most-copied keys on stdout, with
// their MessageIds (sanitised by dedupe; shortened here).
func (d *Deps) PrintKeyDuplicates(s *dedupe.Summary) error {
	line := fmt.Sprintf("by idempotency key (--key %s): %s, %s; %s an earlier one's key (redrive --dedupe leaves them in the DLQ)",
		untrusted.Terminal(strconv.Quote(untrusted.Head(s.Expr, 120))), plural.Of(s.Messages, "message"), plural.Of(s.Keys, "key"),
		plural.Of(s.Duplicates, "message shares", "messages share"))
	if s.NoKey > 0 {
		line += fmt.Sprintf("; %s no key", plural.Of(s.NoKey, "message has", "messages have"))
		if len(s.NoKeyReasons) > 0 {
			line += " (" + untrusted.Terminal(s.NoKeyReasons[0]) + ")"
		}
	}
	d.Infof("%s", line)
	if len(s.Top) == 0 {
		return nil
	}
	t := TableData{Headers: []string{"MESSAGES", "KEY", "DUPLICATES (MESSAGE IDS)"}}
	for _, k := range s.Top {
		ids := strings.Join(k.MessageIDs, " ")
		if k.Messages-1 > len(k.MessageIDs) {
			ids += " …"
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(k.Messages), Excerpt(k.Key, 80), Excerpt(ids, 160)})
	}
	return d.PrintTable(t)
}

// Excerpt shortens s to n runes on one line.
func Excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
