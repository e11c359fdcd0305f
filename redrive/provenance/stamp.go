// Package provenance says where a redriven message came from and who sent
// it back: one message attribute on every message the mover sends
// (Attribute, its value naming the incident, the run, the DLQ's MessageId
// and the attempt), and the operator's identity (STS GetCallerIdentity)
// that the journal, the redrive event and the report record. A consumer's
// logs, and a later DLQ, then tell a redriven message from a fresh one. It
// never imports redrive: the protocol builds the Stamp, the mover applies
// it.
package provenance

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// Attribute is the stamp's message attribute: a String, its name within
// SQS's and SNS's rules (A-Z a-z 0-9 _ - ., not starting AWS. or Amazon.).
const Attribute = "mfdlq-redrive"

// MaxAttributes is how many message attributes SQS takes on a message, and
// SNS delivers to a queue subscribed with raw message delivery (more are
// discarded there as client errors): a message already carrying this many
// goes without the stamp.
const MaxAttributes = 10

// DefaultMaxBytes is a message's size limit when the destination's is not
// known: 262,144 bytes, the default MaximumMessageSize of a queue and
// SNS's limit for a publish, body and attributes together.
const DefaultMaxBytes = 256 << 10

// dataType is the stamp attribute's type: String, its value plain ASCII.
const dataType = "String"

// Stamp is one run's provenance: the same on every message but the DLQ
// MessageId. A nil *Stamp stamps nothing (--no-stamp, or a destination
// that carries no attributes).
type Stamp struct {
	Incident string // the incident directory's name
	Run      string // the run id, as the journal names it
	Attempt  int    // the fix the run moves after (0 reads as 1)
}

// New is the stamp of run in the incident directory dir.
func New(dir, run string, attempt int) *Stamp {
	return &Stamp{Incident: safe(filepath.Base(dir), 64), Run: safe(run, 64), Attempt: max(attempt, 1)}
}

// Value is the attribute's value on the message whose DLQ MessageId is id:
// key=value words, compact enough for a consumer's log line.
func (s *Stamp) Value(id string) string {
	return "incident=" + s.Incident + " run=" + s.Run + " msg=" + safe(id, 128) + " attempt=" + strconv.Itoa(max(s.Attempt, 1))
}

// safe keeps s to the characters a log line and a tag-like value read
// plainly (an --incident path is the operator's, a MessageId a file's in a
// replay), at most n bytes.
func safe(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("._:-", r):
			return r
		}
		return '_'
	}, s)
	if len(s) > n {
		s = s[:n]
	}
	if s == "" {
		return "-"
	}
	return s
}

// Result is what became of one message's stamp.
type Result int

// Results of Fits.
const (
	// Stamped: the message carries this run's stamp, in place of any
	// earlier one.
	Stamped Result = iota
	// Full: it already carries MaxAttributes other attributes; it goes
	// as it was.
	Full
	// TooBig: with the stamp it would pass the destination's size limit;
	// it goes as it was.
	TooBig
)

// Fits tells whether the stamp value fits a message whose attributes are
// attrs and whose attributes travel with body bytes: at most
// MaxAttributes with it (an earlier stamp, which it replaces, not counted),
// and within maxBytes (DefaultMaxBytes when 0) as SQS counts a message's
// size — body plus every attribute's name, type and value. A message it
// does not fit goes without, as it was: never refused for want of it.
func Fits(attrs map[string]sqsjson.MessageAttributeValue, body int, value string, maxBytes int) Result {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	size, others := body+len(Attribute)+len(dataType)+len(value), 0
	for k, a := range attrs {
		if k == Attribute {
			continue
		}
		others++
		size += len(k) + len(a.DataType) + len(a.BinaryValue)
		if a.StringValue != nil {
			size += len(*a.StringValue)
		}
	}
	switch {
	case others >= MaxAttributes:
		return Full
	case size > maxBytes:
		return TooBig
	}
	return Stamped
}

// Set returns attrs with value as the stamp, in place of any earlier one (a
// message redriven twice carries one, this run's): a new map, attrs itself
// unchanged — the received message's map is shared with the journal and
// the deletes.
func Set(attrs map[string]sqsjson.MessageAttributeValue, value string) map[string]sqsjson.MessageAttributeValue {
	out := make(map[string]sqsjson.MessageAttributeValue, len(attrs)+1)
	for k, a := range attrs {
		out[k] = a
	}
	out[Attribute] = sqsjson.MessageAttributeValue{DataType: dataType, StringValue: &value}
	return out
}

// Of is the stamp value a message carries ("" when none).
func Of(m *sqsjson.Message) string {
	if a, ok := m.MessageAttributes[Attribute]; ok && a.StringValue != nil {
		return *a.StringValue
	}
	return ""
}

// For is the stamp of run in the incident directory dir, or nil when off
// (Off's reason) says the messages go without.
func For(off, dir, run string, attempt int) *Stamp {
	if off != "" {
		return nil
	}
	return New(dir, run, attempt)
}
