// Package tagvalue is how mfdlq writes its words into SQS queue tags, the one
// piece of shared state every operator's mfdlq reaches with nothing but the
// queue. A tag value holds at most MaxLen characters of letters, digits,
// spaces and _ . : / = + - @ (SQS's "Quotas related to queues"); anything
// else is refused by TagQueue. Two codecs:
//
//   - Safe keeps the allowed characters and turns every other into '_': for
//     machine words (an operator's name, a host, an ARN) where a lossy
//     rendering is fine. The lease's tag (redrive/lease) uses exactly this.
//   - Encode is reversible, for a person's words (a note): '=' is the escape
//     and every byte outside the set (and '=' itself) becomes =XX, as
//     quoted-printable does. Decode undoes it.
package tagvalue

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// MaxLen is the longest tag value SQS accepts, in characters.
const MaxLen = 256

// Allowed tells whether SQS accepts r in a tag value.
func Allowed(r rune) bool {
	return r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(" _.:/=+-@", r))
}

// Safe returns s with every character a tag may not hold, and spaces (the
// lease separates its words with them) and '=' (its key=value sign), turned
// into '_', cut at max bytes; "unknown" when nothing is left. It is the
// lease's tagSafe, here so that both the lease and the note share it.
func Safe(s string, max int) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= max {
			break
		}
		if Allowed(r) && r != ' ' && r != '=' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "unknown"
	}
	return b.String()
}

const hexDigits = "0123456789ABCDEF"

// Encode returns s in tag characters only, reversibly: an allowed character
// stays (one character), '=' and every byte of any other character become
// =XX (three characters per byte: an apostrophe is 3, an em dash 9).
func Encode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != '=' && r != utf8.RuneError && Allowed(r) {
			b.WriteRune(r)
			i += n
			continue
		}
		for _, c := range []byte(s[i : i+n]) {
			b.WriteByte('=')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
		i += n
	}
	return b.String()
}

// EncodedLen is len(Encode(s)) without building it.
func EncodedLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r != '=' && r != utf8.RuneError && Allowed(r) {
			n++
		} else {
			n += 3 * w
		}
		i += w
	}
	return n
}

// ErrNotEncoded is a value Encode did not write: a character a tag may not
// hold, or an escape that is not =XX. Another tool, or a person in the
// console, may have set it.
var ErrNotEncoded = errors.New("not a tag value mfdlq encoded")

// Decode reverses Encode. It refuses what Encode cannot have written, and
// a result that is not UTF-8; the caller still sanitises the text for
// wherever it goes (package untrusted): anyone who may tag the queue
// chose these bytes.
func Decode(v string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '=' {
			if !Allowed(rune(c)) {
				return "", ErrNotEncoded
			}
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(v) {
			return "", ErrNotEncoded
		}
		hi, lo := strings.IndexByte(hexDigits, v[i+1]), strings.IndexByte(hexDigits, v[i+2])
		if hi < 0 || lo < 0 {
			return "", ErrNotEncoded
		}
		b.WriteByte(byte(hi<<4 | lo))
		i += 2
	}
	if !utf8.ValidString(b.String()) {
		return "", ErrNotEncoded
	}
	return b.String(), nil
}
