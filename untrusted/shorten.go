package untrusted

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Shorten returns s when it is at most limit bytes, else its first bytes
// (cut on a character boundary) followed by "…[sha256:xxxxxxxx, N bytes]":
// the hash of the whole value keeps two long values that share a prefix
// apart, and names the value for a grep in the incident directory. The
// result is at most limit bytes when limit leaves room for the suffix
// (about 40 bytes); shorter limits still get the whole suffix.
func Shorten(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	suffix := "…[" + hashOf(s) + ", " + strconv.Itoa(len(s)) + " bytes]"
	return cut(s, limit-len(suffix)) + suffix
}

// ShortenHead is Shorten for a value of which the caller holds only the
// head (the first bytes, already processed — redacted, sanitised) of a
// whole of total bytes: the suffix names the head's hash and the whole's
// length. It lets a caller avoid scanning megabytes it will never show.
func ShortenHead(head string, total, limit int) string {
	suffix := "…[" + hashOf(head) + ", " + strconv.Itoa(total) + " bytes]"
	return cut(head, limit-len(suffix)) + suffix
}

// hashOf is a short, stable name for s.
func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:4])
}

// cut returns the longest prefix of s of at most n bytes that ends on a
// character boundary.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// FingerprintLimit is the length Fingerprint shortens to.
const FingerprintLimit = 120

// Fingerprint shortens a classify fingerprint — schema-naming fields, then
// the sorted top-level keys in braces, "version=2 type=order {a,b,c}" — to
// about FingerprintLimit bytes: the fields are kept (each shortened), then
// as many keys as fit, then how many keys were left out and a hash of the
// whole fingerprint, "version=2 {a,b,…+1997 keys, sha256:1a2b3c4d}". A
// fingerprint that is short enough, or is not of that shape, is returned
// as is or through Shorten. Keys may hold commas and braces (they are JSON
// keys), so the count is of comma-separated parts: exact for ordinary keys.
func Fingerprint(fp string) string {
	if len(fp) <= FingerprintLimit {
		return fp
	}
	open := keysStart(fp)
	if open < 0 || !strings.HasSuffix(fp, "}") {
		return Shorten(fp, FingerprintLimit)
	}
	var b strings.Builder
	for _, f := range strings.Fields(fp[:open]) {
		b.WriteString(Shorten(f, 40))
		b.WriteByte(' ')
	}
	if b.Len() > FingerprintLimit/2 {
		return Shorten(fp, FingerprintLimit)
	}
	keys := strings.Split(fp[open+1:len(fp)-1], ",")
	tail := func(left int) string {
		return "…+" + strconv.Itoa(left) + " keys, " + hashOf(fp) + "}"
	}
	b.WriteByte('{')
	for i, k := range keys {
		sep := 0
		if i > 0 {
			sep = 1
		}
		// Room for this key, then a comma and the tail naming the rest.
		if b.Len()+sep+len(k)+1+len(tail(len(keys)-i-1)) > FingerprintLimit && i < len(keys)-1 ||
			b.Len()+sep+len(k)+1 > FingerprintLimit {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(tail(len(keys) - i))
			return b.String()
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
	}
	b.WriteByte('}')
	return b.String()
}

// keysStart is the offset of the brace that opens the key list: at the
// start, or after the space that ends the last field.
func keysStart(fp string) int {
	if strings.HasPrefix(fp, "{") {
		return 0
	}
	i := strings.Index(fp, " {")
	if i < 0 {
		return -1
	}
	return i + 1
}

// Head is the longest prefix of s of at most n bytes that ends on a
// character boundary and, when there is one in its last 1 KiB, right after
// a space or a JSON or list separator: a value cut before it is redacted
// loses a card number, IBAN, e-mail or token that straddles the cut whole,
// instead of keeping a part the redactor no longer recognises (a card
// without its Luhn digit can be rebuilt from the rest).
func Head(s string, n int) string {
	if n >= len(s) {
		return s
	}
	n = len(cut(s, n))
	for i := n; i > 0 && i > n-1024; i-- {
		switch s[i-1] {
		case ' ', '\t', '\n', ',', ';', '{', '}', '[', ']', '(', ')', '"', '\'':
			return s[:i]
		}
	}
	return s[:n]
}
