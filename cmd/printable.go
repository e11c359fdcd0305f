package cmd

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// printable makes text from AWS or a message safe for a terminal: control
// and bidi characters become spaces (they could move the cursor or reorder
// what the operator reads) and it is cut to at most n bytes.
func printable(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= n {
			b.WriteString("…")
			break
		}
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r), r == '\u2028', r == '\u2029':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
