// Package signature normalises an error text into its signature: the kind
// of error with what varies from message to message replaced. classify
// groups messages by it and logsearch names each exception by it, so both
// read the same words from the same text.
package signature

import (
	"strings"
)

// maxSignature bounds a signature's length in bytes: the head of an error
// names its kind; the rest is usually a payload dump.
const maxSignature = 200

// Of returns the error signature of an error text: its exception type
// and message with the parts that vary from message to message replaced by
// placeholders — numbers (<n>), UUIDs (<uuid>), hex ids (<hex>), mixed ids
// (<id>), timestamps (<time>) and e-mail addresses (<email>). Prefixes stay:
// "SkuNotFound: SKU-9123" and "SkuNotFound: SKU-9555" are both
// "SkuNotFound: SKU-<n>", and "UnsupportedVersionError: version 2" is
// "UnsupportedVersionError: version <n>".
//
// Of a multi-line text only the exception line counts: the first line, or
// for a Python traceback the last unindented one. A Lambda error document
// ({"errorType": …, "errorMessage": …}) becomes "errorType: errorMessage".
//
// A number in a code's position stays (Version 2): an HTTP status after
// "status", "code", "HTTP" or "returned" ("HTTP 503", "StatusCode: 409"),
// or before its reason phrase ("503 Service Unavailable"), and an SQLSTATE
// after "SQLSTATE" ("(SQLSTATE 42804)"): texts that differ in a decisive
// code are different failures. Ids and counts still vary.
func Of(text string) string { return OfVersion(text, Version) }

// Version is the signature rules' version that Of follows: 1 replaced
// every number, 2 keeps codes. classify records it with its groups' keys
// so that a classification made with version 1 still finds its groups.
const Version = 2

// OfVersion is Of by the rules of version v (1 or 2).
func OfVersion(text string, v int) string {
	line := Headline(text)
	line = maskValue(line, ValueOf(line))
	var b strings.Builder
	b.Grow(len(line))
	space := false
	prev := "" // the word token before this one
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			space = true
			i++
			continue
		case space && b.Len() > 0:
			b.WriteByte(' ')
		}
		space = false
		if !isWordByte(c) {
			b.WriteByte(c)
			i++
			continue
		}
		end := tokenEnd(line, i)
		tok := line[i:end]
		if v >= 2 && isCode(prev, tok, nextWord(line, end)) {
			b.WriteString(tok)
		} else {
			writeToken(&b, tok)
		}
		prev = tok
		i = end
	}
	s := b.String()
	if len(s) > maxSignature {
		s = strings.ToValidUTF8(s[:maxSignature], "")
	}
	return s
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// isJoiner tells the bytes that join the parts of one token ("SKU-9123",
// "12.50", "2024-03-10T22:04:00Z", "a@b.example") when a word byte follows.
func isJoiner(c byte) bool {
	return c == '-' || c == '_' || c == '.' || c == ':' || c == '/' || c == '+' || c == '@'
}

// tokenEnd returns the end of the token starting at i.
func tokenEnd(s string, i int) int {
	for i < len(s) {
		switch {
		case isWordByte(s[i]):
			i++
		case isJoiner(s[i]) && i+1 < len(s) && isWordByte(s[i+1]):
			i++
		default:
			return i
		}
	}
	return i
}

// writeToken writes tok, or its placeholder, to b.
func writeToken(b *strings.Builder, tok string) {
	switch {
	case strings.IndexByte(tok, '@') > 0:
		b.WriteString("<email>")
		return
	case isUUID(tok):
		b.WriteString("<uuid>")
		return
	case isTimestamp(tok):
		b.WriteString("<time>")
		return
	case isNumber(tok):
		b.WriteString("<n>")
		return
	}
	// Each part between joiners is judged alone, so the stable prefix of an
	// id stays: "ord-000123" → "ord-<n>".
	start := 0
	for i := 0; i <= len(tok); i++ {
		if i < len(tok) && !isJoiner(tok[i]) {
			continue
		}
		b.WriteString(segment(tok[start:i]))
		if i < len(tok) {
			b.WriteByte(tok[i])
		}
		start = i + 1
	}
}

// segment returns a placeholder for a part of a token that varies, or the
// part itself. A mixed part is an id when it holds three or more digits, so
// names such as Base64DecodeError, S3Exception or v2 stay as they are.
func segment(p string) string {
	digits, letters, hex := 0, 0, true
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			letters++
		default:
			letters++
			hex = false
		}
	}
	switch {
	case digits == 0:
		return p
	case letters == 0:
		return "<n>"
	case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
		return "<hex>"
	case hex && len(p) >= 8:
		return "<hex>"
	case digits >= 3:
		return "<id>"
	}
	return p
}

// isNumber tells a plain or decimal number ("42", "12.50", "1,5" is two).
func isNumber(tok string) bool {
	dot := false
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && !dot && i > 0:
			dot = true
		default:
			return false
		}
	}
	return tok != ""
}

// isUUID tells the 8-4-4-4-12 hex form.
func isUUID(tok string) bool {
	if len(tok) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := tok[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// isTimestamp tells dates and times: a token that starts with a digit,
// holds only digits, joiners and the letters T and Z, and has a date's
// dashes or a time's colons.
func isTimestamp(tok string) bool {
	if tok == "" || tok[0] < '0' || tok[0] > '9' {
		return false
	}
	dashes, colons := 0, 0
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; {
		case c >= '0' && c <= '9', c == 'T', c == 'Z', c == '.', c == '+':
		case c == '-':
			dashes++
		case c == ':':
			colons++
		default:
			return false
		}
	}
	return dashes >= 2 || colons >= 1
}

// isCode tells a token in a code's position: a status (100–599) after a
// word that names one or before its reason phrase, an SQLSTATE (five
// digits and capitals) after "SQLSTATE", or an Oracle "ORA-00001".
func isCode(prev, tok, next string) bool {
	if code, ok := strings.CutPrefix(tok, "ORA-"); ok && len(code) == 5 && isNumber(code) {
		return true // an Oracle error code
	}
	p := strings.ToLower(prev)
	if len(tok) == 3 && tok[0] >= '1' && tok[0] <= '5' && isNumber(tok) {
		switch {
		case countNouns[strings.ToLower(next)]:
			return false // "returned 500 rows": a count
		case strings.HasPrefix(p, "http"), statusWords[p], reasonWords[next]:
			return true
		}
		return false
	}
	if len(tok) == 5 && (p == "sqlstate" || p == "sql_state") {
		for i := 0; i < 5; i++ {
			if c := tok[i]; !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
		return true
	}
	return false
}

// countNouns follow a number that counts: "returned 500 rows".
var countNouns = map[string]bool{"rows": true, "row": true, "items": true, "records": true, "results": true, "bytes": true,
	"ms": true, "s": true, "seconds": true, "messages": true, "entries": true, "lines": true, "times": true, "errors": true}

// statusWords name an HTTP status when they precede a number.
var statusWords = map[string]bool{
	"status": true, "code": true, "statuscode": true, "status_code": true, "httpstatus": true, "http_status": true,
	"returned": true, "response": true, "responded": true, "error": true,
}

// reasonWords start an HTTP reason phrase ("503 Service Unavailable",
// "404 Not Found", requests' "503 Server Error").
var reasonWords = map[string]bool{
	"Bad": true, "Unauthorized": true, "Forbidden": true, "Not": true, "Request": true, "Conflict": true, "Gone": true,
	"Precondition": true, "Payload": true, "Content": true, "Unsupported": true, "Unprocessable": true, "Too": true,
	"Internal": true, "Service": true, "Gateway": true, "Client": true, "Server": true, "OK": true,
}

// nextWord is the word that follows position i of s after spaces.
func nextWord(s string, i int) string {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '(') {
		i++
	}
	j := i
	for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
		j++
	}
	return s[i:j]
}
