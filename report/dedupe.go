package report

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/plural"
)

// writeDedupe is the redrive section's account of --dedupe: the key, how
// many messages stayed because another of their key moved, the first of
// them with their keys (redacted and encoded as any data), and those
// moved without a key.
func (inc *Incident) writeDedupe(b *strings.Builder, f dedupe.Figures) {
	fmt.Fprintf(b, "\nDeduplicated by the idempotency key %s: %s left in the DLQ because another message of the same key moved (journaled `duplicate`, never deleted)",
		inc.code(f.Key, maxValue), plural.Of(f.Duplicates, "message"))
	if f.NoKey > 0 {
		fmt.Fprintf(b, "; %s moved without a key (each as its own)", plural.Of(f.NoKey, "message"))
		if len(f.NoKeyReasons) > 0 {
			fmt.Fprintf(b, " (%s)", inc.plain(f.NoKeyReasons[0], maxValue))
		}
	}
	b.WriteString(".\n")
	for _, ex := range f.Examples {
		fmt.Fprintf(b, "\n- left: %s, key %s", inc.code(ex.MessageID, maxName), inc.code(ex.Key, maxValue))
	}
	if len(f.Examples) > 0 {
		b.WriteString("\n")
	}
}

// dedupeText is the summary's clause of --dedupe; "" without it.
func dedupeText(f *dedupe.Figures) string {
	if f == nil {
		return ""
	}
	return fmt.Sprintf("; %s left in the DLQ (--dedupe)", plural.Of(f.Duplicates, "duplicate"))
}
