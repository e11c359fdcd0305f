package untrusted

import (
	"bytes"
	"unicode/utf8"
)

// JSON is encoded JSON (a line mfdlq writes: --output json, the error
// line, --when-ok's status lines, a summary) with every character a
// terminal must not receive raw — C1 controls, bidi controls, zero-width
// and other format characters, line and paragraph separators: what
// Terminal escapes — written as a JSON \u escape instead. encoding/json
// escapes C0 controls but leaves these as they are, so a bidi override in
// a queue name reordered a JSON line read on a terminal. The escape is
// JSON's own: a parser reads back exactly the string that was encoded, so
// scripts see the data unchanged. It is the one escaping of a JSON line,
// wherever the line goes. Valid JSON in, valid JSON out; b is returned as
// is when it holds nothing to escape (plain ASCII costs one scan).
func JSON(b []byte) []byte {
	i := firstUnsafeJSON(b)
	if i < 0 {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	for i >= 0 {
		out.Write(b[:i])
		r, size := utf8.DecodeRune(b[i:])
		writeJSONEscape(&out, r)
		b = b[i+size:]
		i = firstUnsafeJSON(b)
	}
	out.Write(b)
	return out.Bytes()
}

// firstUnsafeJSON is the offset of the first character JSON escapes, or
// -1.
func firstUnsafeJSON(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if size > 1 && unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// writeJSONEscape writes r as JSON's \uNNNN, a surrogate pair beyond the
// BMP (the tag characters U+E0000…).
func writeJSONEscape(out *bytes.Buffer, r rune) {
	if r > 0xffff {
		r -= 0x10000
		writeJSONEscape(out, 0xd800+(r>>10))
		writeJSONEscape(out, 0xdc00+(r&0x3ff))
		return
	}
	out.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		out.WriteByte(hexDigits[(r>>uint(shift))&0xf])
	}
}
