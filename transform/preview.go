package transform

import (
	"fmt"
	"io"
	"slices"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redact"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// DefaultExamples is how many before/after diffs a preview keeps: the plan
// shows them on the terminal and the report keeps them.
const DefaultExamples = 3

// maxFailureTexts is how many failures a preview names.
const maxFailureTexts = 3

// Figures is the transform's record in the redrive's event: the program,
// the counts and the first examples, already redacted and sanitised, so
// that the report renders them as they are. The JSON keys are a contract
// with old incident directories: add, never rename.
type Figures struct {
	Program   string `json:"program"`
	Origin    string `json:"origin"`
	Changed   int    `json:"changed"`
	Unchanged int    `json:"unchanged"`
	Failed    int    `json:"failed"`
	// Unsigned counts the SNS envelopes whose signature fields the re-wrap
	// dropped (envelope.SignatureFields).
	Unsigned     int       `json:"unsigned,omitempty"`
	Examples     []Example `json:"examples,omitempty"`
	FailureTexts []string  `json:"failure_texts,omitempty"`
}

// Example is one message's before/after.
type Example struct {
	// Position is the message's place in the selection, from 1.
	Position  int    `json:"position"`
	MessageID string `json:"message_id"`
	// Diff is the redacted, sanitised line diff: "  " same, "- " before,
	// "+ " after.
	Diff []string `json:"diff"`
	// Hidden tells a change that lies wholly inside redacted values: the
	// diff shows no line changed.
	Hidden bool `json:"hidden,omitempty"`
}

// Preview counts a program's outcomes over a selection and keeps the
// first examples and failures. The zero value keeps DefaultExamples; it is
// not safe for concurrent use.
type Preview struct {
	Max int // examples kept (DefaultExamples when zero)
	fig Figures
	red redact.Redactor
}

// NewPreview starts a preview of p.
func NewPreview(p *Program) *Preview {
	pv := &Preview{}
	pv.fig = Figures{Program: pv.red.String(untrusted.Shorten(p.Source, 2000)), Origin: p.Origin}
	return pv
}

// Add counts one message's result; pos is its place in the selection
// (from 1), m the original.
func (pv *Preview) Add(pos int, m *sqsjson.Message, r Result) {
	if r.Interrupted {
		return // no verdict: the run was cut short on this message
	}
	pv.red.Carry = true // a value redacted once is redacted wherever it shows again
	max := pv.Max
	if max <= 0 {
		max = DefaultExamples
	}
	switch r.Outcome {
	case Unchanged:
		pv.fig.Unchanged++
	case Failed:
		pv.fig.Failed++
		if len(pv.fig.FailureTexts) < maxFailureTexts {
			// The payload is read first for what it teaches the redactor:
			// a program's error may quote a secret's value without its key.
			pv.red.String(diffText(r.Before, m.MessageAttributes, true, &pv.red))
			t := untrusted.Cell(pv.red.String(fmt.Sprintf("message %d (MessageId %s): %s", pos, untrusted.Shorten(m.MessageId, 100), r.Reason)))
			pv.fig.FailureTexts = append(pv.fig.FailureTexts, t)
		}
	case Changed:
		pv.fig.Changed++
		if len(r.Dropped) > 0 {
			pv.fig.Unsigned++
		}
		if len(pv.fig.Examples) < max {
			pv.fig.Examples = append(pv.fig.Examples, pv.example(pos, m, r))
		}
	}
}

func (pv *Preview) example(pos int, m *sqsjson.Message, r Result) Example {
	learnAttributes(m.MessageAttributes, &pv.red)
	before, after := diffSides(diffText(r.Before, m.MessageAttributes, r.AttributesChanged, &pv.red),
		diffText(r.After, r.Message.MessageAttributes, r.AttributesChanged, &pv.red), &pv.red)
	d := diffLines(before, after)
	hidden := !slices.ContainsFunc(d, func(l string) bool { return l[0] != ' ' })
	return Example{Position: pos, MessageID: untrusted.Cell(untrusted.Shorten(m.MessageId, 100)), Diff: d, Hidden: hidden}
}

// Figures is what the preview counted.
func (pv *Preview) Figures() Figures { return pv.fig }

// Write prints the preview for the terminal: the program, the counts, the
// examples and the failures.
func (f Figures) Write(w io.Writer) {
	fmt.Fprintf(w, "transform: %s\n", programLine(f.Program, f.Origin))
	total := f.Changed + f.Unchanged + f.Failed
	fmt.Fprintf(w, "  %s: %d changed, %d unchanged, %d failed (left in the DLQ)\n", plural.Of(total, "message"), f.Changed, f.Unchanged, f.Failed)
	f.WriteExamples(w)
}

// WriteExamples prints the examples and the failures alone, for a plan
// that said the program and the counts already.
func (f Figures) WriteExamples(w io.Writer) {
	for _, ex := range f.Examples {
		fmt.Fprintf(w, "  message %d (MessageId %s), before (-) and after (+), redacted:\n", ex.Position, ex.MessageID)
		for _, l := range ex.Diff {
			fmt.Fprintf(w, "    %s\n", l)
		}
		if ex.Hidden {
			fmt.Fprintln(w, "    (the change lies inside redacted values)")
		}
	}
	for _, t := range f.FailureTexts {
		fmt.Fprintf(w, "  failed: %s\n", t)
	}
	if f.Failed > len(f.FailureTexts) {
		fmt.Fprintf(w, "  failed: %d more\n", f.Failed-len(f.FailureTexts))
	}
}
