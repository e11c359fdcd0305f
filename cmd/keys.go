package cmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// keyHelp is --key's help, shared by inspect, classify and redrive.
const keyHelp = `the consumer's idempotency key, a jq expression over the payload (inside an SNS or EventBridge envelope, the inner message), e.g. '"cobro:" + .order_id': count the messages that share one`

// payloadOf is the payload a --key reads: what d (inspect's and
// classify's --payload) finds, or envelope.Detect's without one — the
// inner message of an SNS or EventBridge envelope, as the mover and
// --transform see it.
func payloadOf(d *envelope.Detector) dedupe.Payload {
	detect := envelope.Detect
	if d != nil {
		detect = d.Detect
	}
	return func(m *sqsjson.Message) ([]byte, bool) {
		env := detect(m)
		return env.Payload, env.PayloadJSON
	}
}

// printKeyDuplicates shows what a --key tally found (inspect, classify):
// one line of counts on stderr, then the most-copied keys on stdout, with
// their MessageIds (sanitised by dedupe; shortened here).
func (d *Deps) printKeyDuplicates(s *dedupe.Summary) error {
	line := fmt.Sprintf("by idempotency key (--key %s): %s, %s; %s an earlier one's key (redrive --dedupe leaves them in the DLQ)",
		untrusted.Terminal(strconv.Quote(untrusted.Head(s.Expr, 120))), plural.Of(s.Messages, "message"), plural.Of(s.Keys, "key"),
		plural.Of(s.Duplicates, "message shares", "messages share"))
	if s.NoKey > 0 {
		line += fmt.Sprintf("; %s no key", plural.Of(s.NoKey, "message has", "messages have"))
		if len(s.NoKeyReasons) > 0 {
			line += " (" + untrusted.Terminal(s.NoKeyReasons[0]) + ")"
		}
	}
	d.infof("%s", line)
	if len(s.Top) == 0 {
		return nil
	}
	t := tableData{Headers: []string{"MESSAGES", "KEY", "DUPLICATES (MESSAGE IDS)"}}
	for _, k := range s.Top {
		ids := strings.Join(k.MessageIDs, " ")
		if k.Messages-1 > len(k.MessageIDs) {
			ids += " …"
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(k.Messages), excerpt(k.Key, 80), excerpt(ids, 160)})
	}
	return d.printTable(t)
}
