package provenance

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/plural"
)

// Counts are what became of the stamps of the messages a move sent.
type Counts struct {
	Stamped int `json:"stamped"`
	// Full went without: they already carried MaxAttributes attributes.
	Full int `json:"full,omitempty"`
	// TooBig went without: the stamp would have passed the size limit.
	TooBig int `json:"too_big,omitempty"`
}

// Add counts one sent message's Result.
func (c *Counts) Add(r Result) {
	switch r {
	case Stamped:
		c.Stamped++
	case Full:
		c.Full++
	case TooBig:
		c.TooBig++
	}
}

// Plus is c and a later phase's o together.
func (c Counts) Plus(o Counts) Counts {
	return Counts{Stamped: c.Stamped + o.Stamped, Full: c.Full + o.Full, TooBig: c.TooBig + o.TooBig}
}

// Without is how many messages went without the stamp.
func (c Counts) Without() int { return c.Full + c.TooBig }

// Figures are a redrive event's provenance: who ran it, and what the
// messages carried. The JSON keys are events.jsonl's contract
// (docs/incident.md).
type Figures struct {
	// Operator is the caller's ARN (STS GetCallerIdentity); "" when STS
	// could not say.
	Operator string `json:"operator,omitempty"`
	// Attribute is the stamp's attribute name; "" when the move stamped
	// nothing, and Off says why.
	Attribute string `json:"attribute,omitempty"`
	Off       string `json:"off,omitempty"`
	Counts
}

// Off is why a move's messages go without the stamp, for the plan and the
// event ("" when they carry it): --no-stamp; SQS's move task, which sends
// each message as it was; a Lambda function or an EventBridge bus, whose
// Invoke and PutEvents carry no message attributes — mfdlq never writes
// into a payload the consumer reads.
func Off(noStamp, native bool, targetKind string) string {
	switch {
	case noStamp:
		return "off (--no-stamp)"
	case native:
		return "off (--native: SQS's move task sends each message as it was)"
	case targetKind == "lambda":
		return "off: an asynchronous Lambda invocation carries its payload only, no attributes (the journal names each RequestId)"
	case targetKind == "events":
		return "off: an EventBridge event carries no message attributes (the journal names each EventId)"
	}
	return ""
}

// PlanLines are the plan's provenance lines: the stamp (an example of its
// value) or why none, and the operator.
func PlanLines(off, dir string, attempt, maxBytes int, operator string) []string {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	stamp := "provenance: " + off
	if off == "" {
		s := New(dir, "", attempt)
		stamp = fmt.Sprintf("provenance: each message carries %s=\"incident=%s run=<run id> msg=<its DLQ MessageId> attempt=%d\" in place of any earlier one; one already carrying %d message attributes, or over %d bytes with it, goes without (counted); --no-stamp sends none",
			Attribute, s.Incident, s.Attempt, MaxAttributes, maxBytes)
	}
	who := "operator: unknown (STS GetCallerIdentity did not answer)"
	if operator != "" {
		who = "operator: " + operator + " (STS GetCallerIdentity), recorded in the journal, the redrive event and the report"
	}
	return []string{stamp, who}
}

// Line is the summary's provenance line ("" when the move stamped nothing
// and nothing was sent).
func (f *Figures) Line() string {
	if f == nil || f.Attribute == "" {
		return ""
	}
	s := fmt.Sprintf("provenance: %s stamped %s", plural.Of(f.Stamped, "message"), f.Attribute)
	if n := f.Without(); n > 0 {
		s += "; " + plural.Of(n, "message") + " went without it (" + f.WithoutText() + ")"
	}
	return s
}

// WithoutText says why messages went without the stamp.
func (c Counts) WithoutText() string {
	var why []string
	if c.Full > 0 {
		why = append(why, fmt.Sprintf("%d already carried %d message attributes", c.Full, MaxAttributes))
	}
	if c.TooBig > 0 {
		why = append(why, fmt.Sprintf("%d would have passed the size limit", c.TooBig))
	}
	return strings.Join(why, ", ")
}

// NewFigures are a move's provenance figures: off as Off said it ("" when
// the messages carry the stamp), the operator's ARN, and the counts.
func NewFigures(off, operator string, c Counts) *Figures {
	f := &Figures{Operator: operator, Off: off, Counts: c}
	if off == "" {
		f.Attribute = Attribute
	}
	return f
}
