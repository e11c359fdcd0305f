package report

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/transform"
)

// writeTransform is the redrive section's account of a --transform: the
// program, what it did to how many messages, three before/after examples
// and the failures (already redacted when the preview kept them, and
// redacted again here as any data is), and the command that puts the
// originals back.
func (inc *Incident) writeTransform(b *strings.Builder, f transform.Figures, undo string) {
	fmt.Fprintf(b, "\nRepaired on the way with %s (%d changed, %d unchanged, %d failed and left in the DLQ", inc.code(f.Origin, maxName),
		f.Changed, f.Unchanged, f.Failed)
	if f.Unsigned > 0 {
		fmt.Fprintf(b, "; %d SNS envelopes sent without their signature fields", f.Unsigned)
	}
	b.WriteString("):\n\n")
	b.WriteString(inc.block(strings.Split(strings.TrimSpace(f.Program), "\n"), maxValue) + "\n")
	for _, ex := range f.Examples {
		fmt.Fprintf(b, "\nMessage %d (%s), before (-) and after (+):\n\n", ex.Position, inc.code(ex.MessageID, maxName))
		lines := ex.Diff
		if ex.Hidden {
			lines = append(lines, "(the change lies inside redacted values)")
		}
		b.WriteString(inc.block(lines, maxValue) + "\n")
	}
	n, more := capped(len(f.FailureTexts), "failure")
	for _, t := range f.FailureTexts[:n] {
		fmt.Fprintf(b, "\n- failed: %s", inc.plain(t, maxValue))
	}
	if n > 0 {
		b.WriteString("\n" + more)
	}
	if undo != "" {
		fmt.Fprintf(b, "\nTo put the originals back into the DLQ: %s\n", inc.code(undo, maxCommand))
	}
}
