// Package untrusted is how data written by strangers leaves mfdlq: message
// bodies, attributes, log lines, exception texts, AWS names and the
// operator's own free text. Such data reaches three places, and each has a
// function here:
//
//   - a terminal or a TSV pipe: Terminal, Cell and Block make every control
//     character, bidi control, zero-width character and invalid UTF-8 byte
//     visible as an escape (`\x1b`, `\u202e`), so data can neither move the
//     cursor, retitle the window, forge a link nor reorder what is shown;
//   - markdown (report.md, pasted into tickets): Code, CodeCell, Fenced and
//     Text encode a value so that it renders as itself and can never close
//     its code span or fence, open an HTML block or start a heading. They
//     apply the terminal sanitiser first, since report.md is also cat-ed;
//   - a bounded place: Shorten and Fingerprint cut long values with a
//     stable hash suffix, so two different values never look the same.
//
// The package imports nothing of mfdlq's: it knows text, not messages.
package untrusted

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// mode says which whitespace a sanitiser keeps as is.
type mode uint8

const (
	keepTab     mode = 1 << iota // a tab stays a tab
	keepNewline                  // a newline stays a newline
)

// Terminal returns s made safe for one line of a terminal: control
// characters (C0, DEL, C1, including newline and carriage return), bidi
// controls, zero-width and other invisible format characters, line and
// paragraph separators and invalid UTF-8 bytes become visible escapes.
// Tabs stay. A clean s is returned as is, without allocating.
func Terminal(s string) string { return sanitise(s, keepTab) }

// Cell is Terminal for a table or TSV cell: a tab is escaped too, so a
// value can never add a column or a row.
func Cell(s string) string { return sanitise(s, 0) }

// Block is Terminal for multi-line text (a body shown whole, a fenced
// block): newlines and tabs stay, a carriage return is escaped, since it
// would let a line overwrite the one the operator is reading.
func Block(s string) string { return sanitise(s, keepTab|keepNewline) }

// sanitise escapes what m does not keep; the fast path returns s unchanged.
func sanitise(s string, m mode) string {
	i := firstUnsafe(s, m)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i >= 0 {
		b.WriteString(s[:i])
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < utf8.RuneSelf || (r == utf8.RuneError && size <= 1) {
			writeByteEscape(&b, s[i])
		} else {
			writeRuneEscape(&b, r)
		}
		s = s[i+size:]
		i = firstUnsafe(s, m)
	}
	b.WriteString(s)
	return b.String()
}

// firstUnsafe is the byte offset of the first character m would escape,
// or -1 when there is none.
func firstUnsafe(s string, m mode) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !asciiSafe(c, m) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

func asciiSafe(c byte, m mode) bool {
	switch {
	case c >= 0x20 && c < 0x7f:
		return true
	case c == '\t':
		return m&keepTab != 0
	case c == '\n':
		return m&keepNewline != 0
	}
	return false
}

// unsafeRune reports the non-ASCII characters a terminal must not receive
// raw: C1 controls (Cc), every format character (Cf: the bidi embeddings,
// overrides and isolates, U+200B–U+200F, U+2060–U+2064, U+061C, U+FEFF, the
// tag characters used to smuggle text), and the line and paragraph
// separators (Zl, Zp) that some renderers break lines on.
func unsafeRune(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

const hexDigits = "0123456789abcdef"

// writeByteEscape writes a control byte or an invalid UTF-8 byte as the
// escape a programmer reads: \n, \r, \t, else \xNN.
func writeByteEscape(b *strings.Builder, c byte) {
	switch c {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		b.WriteString(`\x`)
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&0xf])
	}
}

// writeRuneEscape writes r as \uNNNN, or \U00NNNNNN beyond the BMP.
func writeRuneEscape(b *strings.Builder, r rune) {
	n := 4
	if r > 0xffff {
		b.WriteString(`\U`)
		n = 8
	} else {
		b.WriteString(`\u`)
	}
	for shift := 4 * (n - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>uint(shift))&0xf])
	}
}
