package classify

import (
	"github.com/mfdlq/mfdlq/signature"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Key is what puts a message in a group: the content fingerprint of its body
// and its error signature ("" when nothing tells the error), and on a DLQ
// with several sources the queue the message came from.
type Key struct {
	Fingerprint string
	Signature   string
	// Source is the message's DeadLetterQueueSourceArn, NoSource without
	// one, when the classification groups by source (Classification.
	// BySource); "" otherwise, so that a single-source DLQ's keys — and the
	// group ids redrive --group looks up by them — stay what they were.
	Source string
}

// NoSource is a Key's Source for a message without DeadLetterQueueSourceArn
// (sent to the DLQ directly) when the classification groups by source.
const NoSource = "-"

// String is the key as classification.json stores it in a group's "key":
// "FINGERPRINT | SIGNATURE", then " | SOURCE" when it has one.
func (k Key) String() string {
	s := k.Fingerprint + " | " + k.Signature
	if k.Source != "" {
		s += " | " + k.Source
	}
	return s
}

// Signatures maps a MessageId to the error signature the consumer's logs
// gave it (logs.json). A signature from the logs is a fact and wins over the
// message attributes.
type Signatures map[string]string

// KeyOf returns the group key of m, its envelope read strictly (no
// --payload) and every payload error field read. It is the function
// classify groups by; redrive calls it, via GroupOf, on live messages to
// decide which group each falls in. sigs may be nil.
func KeyOf(m *sqsjson.Message, sigs Signatures) Key {
	return keyWith(m, sigs, nil, &BodyErrors{}, signature.Version)
}
