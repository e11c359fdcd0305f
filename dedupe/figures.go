package dedupe

import (
	"fmt"
	"strconv"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/untrusted"
)

// Figures are what --dedupe did, in the redrive event (redrive.Figures'
// "dedupe"), read back by the report with this type.
type Figures struct {
	// Key is the expression.
	Key string `json:"key"`
	// Duplicates are the messages left in the DLQ because another message
	// of their key moved (in this run or, by the journal, an earlier one):
	// journaled "duplicate", never deleted.
	Duplicates int `json:"duplicates"`
	// NoKey are the messages the expression gave no key for: moved as
	// their own. NoKeyReasons are the first distinct reasons.
	NoKey        int      `json:"no_key"`
	NoKeyReasons []string `json:"no_key_reasons,omitempty"`
	// Examples are the first duplicates left, with their keys.
	Examples []Example `json:"examples,omitempty"`
}

// Figures returns the run's figures so far; nil without --dedupe (c nil).
func (c *Claims) Figures() *Figures {
	if c == nil {
		return nil
	}
	d, n, reasons, ex := c.Counts()
	return &Figures{Key: c.Key.Expr, Duplicates: d, NoKey: n, NoKeyReasons: reasons, Examples: ex}
}

// PlanLine is the plan's line for --dedupe: what moves and what stays.
func PlanLine(k *Key) string {
	return fmt.Sprintf("dedupe: --key %s: the first message of each key moves, the others stay in the DLQ (journaled duplicate, counted, never deleted); a message without a key moves as its own (see mfdlq inspect --key for the counts)",
		untrusted.Terminal(strconv.Quote(untrusted.Head(k.Expr, 200))))
}

// SummaryLine is the summary's line: how many stayed and why.
func (f Figures) SummaryLine() string {
	line := fmt.Sprintf("dedupe: %s left in the DLQ (another message of the same key moved)", plural.Of(f.Duplicates, "duplicate"))
	if f.NoKey > 0 {
		line += fmt.Sprintf("; %s moved without a key (each as its own)", plural.Of(f.NoKey, "message"))
		if len(f.NoKeyReasons) > 0 {
			line += " (" + untrusted.Terminal(untrusted.Shorten(f.NoKeyReasons[0], 120)) + ")"
		}
	}
	return line
}
