package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Bounds of what a carrying Redactor remembers: a value shorter than
// minCarry is too common to replace everywhere it occurs ("1", "no"),
// maxKnown values are enough for a preview's few messages, and a value
// over maxCarryLen is a document, not a secret to look for.
const (
	minCarry    = 4
	maxKnown    = 512
	maxCarryLen = 4 << 10
)

// secretKey is a whole key that names a secret (secretWord alone).
var secretKey = regexp.MustCompile(`(?i)^` + secretWord + `$`)

// Value is value redacted as the value of a field named key: all of it
// when key names a secret (a message attribute "api_token", whose line
// "api_token (String): …" no key rule reads), else what the rules find in
// it. With Carry the value is learnt either way, so that the same value
// under another name is redacted too (Known).
func (r *Redactor) Value(key, value string) string {
	if r.Counts == nil {
		r.Counts = Counts{}
	}
	if value != "" && secretKey.MatchString(key) && !alreadyRedacted(value) {
		r.Counts[Secret]++
		r.learn(value, Secret)
		return Placeholder(Secret)
	}
	return r.String(value)
}

// learn remembers v, a value a rule replaced, when Carry is set. A value
// held in JSON text is remembered both as written (escaped) and as the
// text it stands for, since a program may move it into a string of
// another document or out of one.
func (r *Redactor) learn(v, kind string) {
	if !r.Carry || len(v) > maxCarryLen {
		return
	}
	if r.known == nil {
		r.known = map[string]string{}
	}
	forms := []string{v}
	if strings.Contains(v, `\`) {
		var un string
		if json.Unmarshal([]byte(`"`+v+`"`), &un) == nil {
			forms = append(forms, un)
		}
	}
	for _, f := range forms {
		f = strings.TrimSpace(f)
		if len(f) < minCarry || alreadyRedacted(f) || strings.Contains(f, "[redacted:") || inPlaceholder(f) {
			continue
		}
		switch f {
		case "true", "false", "null":
			continue
		}
		r.remember(f, kind)
		// The same value as a JSON string's content: quoted into a
		// document inside a string, it gains escapes.
		if q := strings.Trim(quote(f), `"`); q != f {
			r.remember(q, kind)
		}
		// And base64-encoded, as a program's @base64 writes it.
		if len(f) >= 8 {
			r.remember(base64.StdEncoding.EncodeToString([]byte(f)), kind)
			r.remember(base64.RawStdEncoding.EncodeToString([]byte(f)), kind)
		}
		// Percent-encoded (@uri, a query string), HTML-escaped (@html)
		// and reversed: a value a program moved in another spelling.
		for _, g := range []string{uriEscape(f), url.QueryEscape(f), htmlEscape(f), reverse(f)} {
			if g != f && len(g) >= 8 {
				r.remember(g, kind)
			}
		}
		r.rememberWhole(f, kind)
	}
}

// uriEscape is jq's @uri: every byte but the unreserved A-Z a-z 0-9 - _ . ~
// percent-encoded.
func uriEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// htmlEscape is jq's @html.
var htmlEscape = strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;", "'", "&#39;", `"`, "&quot;").Replace

// reverse is s with its runes in reverse order.
func reverse(s string) string {
	rs := []rune(s)
	slices.Reverse(rs)
	return string(rs)
}

// Bounds of the pieces of a split secret: a secret of minWhole bytes or
// more is looked for in pieces of minPiece bytes or more, maxWhole
// secrets at most.
const (
	minWhole = 10
	minPiece = 6
	maxWhole = 64
)

// rememberWhole keeps a learnt secret (not personal data: half an e-mail
// address says little) whose pieces Known looks for.
func (r *Redactor) rememberWhole(v, kind string) {
	switch kind {
	case Secret, Token, JWT, AccessKey, PrivateKey:
	default:
		return
	}
	v = asciiLower(v)
	if len(v) < minWhole || len(r.whole) >= maxWhole || slices.Contains(r.whole, v) {
		return
	}
	r.whole = append(r.whole, v)
}

// pieces replaces in s each word (a run between spaces, quotes and JSON's
// punctuation) of minPiece bytes or more that lies inside a learnt secret:
// a program that split a secret across two fields ("Hunter2-Ze",
// "bra-Quokka9") shows neither half. A JSON key and a placeholder's words
// stay.
func (r *Redactor) pieces(s string) string {
	if len(r.whole) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "[redacted:") {
			if j := strings.IndexByte(s[i:], ']'); j > 0 {
				i += j + 1
				continue
			}
		}
		if isPieceSep(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !isPieceSep(s[j]) && !strings.HasPrefix(s[j:], "[redacted:") {
			j++
		}
		if w := s[i:j]; len(w) >= minPiece && !keyEnds(s, j) && r.inWhole(asciiLower(w)) {
			b.WriteString(s[last:i])
			b.WriteString(Placeholder(Secret))
			r.Counts[Secret]++
			last = j
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// keyEnds tells a word ending at j that is a key: its closing quote, if
// any, then a colon.
func keyEnds(s string, j int) bool {
	if j < len(s) && s[j] == '"' {
		j++
	}
	return isKey(s, j)
}

func (r *Redactor) inWhole(w string) bool {
	for _, v := range r.whole {
		if strings.Contains(v, w) {
			return true
		}
	}
	return false
}

// isPieceSep ends a word for pieces: white space, quotes, a backslash and
// JSON's punctuation.
func isPieceSep(c byte) bool {
	return strings.IndexByte(" \t\r\n\"'\\,:;{}[]()", c) >= 0
}

// inPlaceholder tells a value that is part of a placeholder's own text
// ("secret", "redacted"): replaced everywhere, it would eat the
// placeholders.
func inPlaceholder(v string) bool {
	v = asciiLower(v)
	for _, k := range []string{Email, Phone, Card, IBAN, Token, JWT, AccessKey, Secret, PrivateKey} {
		if strings.Contains(Placeholder(k), v) {
			return true
		}
	}
	return false
}

// remember keeps v (compared without regard to ASCII case: a program's
// ascii_upcase must not reveal it) while there is room.
func (r *Redactor) remember(v, kind string) {
	k := asciiLower(v)
	if _, ok := r.known[k]; !ok && len(r.known) < maxKnown {
		r.known[k] = kind
	}
}

// asciiLower is s with A-Z lowered and every other byte as it is: the same
// length, so an offset in it is an offset in s.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// Known replaces in s every value this Redactor replaced before (with
// Carry set), wherever it appears and whatever key holds it, longest
// first so that a value holding another is replaced whole. A value of
// fewer than eight bytes is replaced only where it stands alone (not
// inside a longer word or number): a short PIN must not eat the digits of
// every order id. Without Carry, or before anything was learnt, s is
// returned as it is.
func (r *Redactor) Known(s string) string {
	if len(r.known) == 0 {
		return s
	}
	if r.Counts == nil {
		r.Counts = Counts{}
	}
	lower := asciiLower(s)
	vals := make([]string, 0, len(r.known))
	for v := range r.known {
		if strings.Contains(lower, v) {
			vals = append(vals, v)
		}
	}
	sort.Slice(vals, func(i, j int) bool {
		return len(vals[i]) > len(vals[j]) || len(vals[i]) == len(vals[j]) && vals[i] < vals[j]
	})
	for _, v := range vals {
		s = r.replaceKnown(s, v, r.known[v])
	}
	return r.pieces(s)
}

// replaceKnown replaces each occurrence of v (lower case) in s, whatever
// its ASCII case, that stands alone enough (see Known) by kind's
// placeholder.
func (r *Redactor) replaceKnown(s, v, kind string) string {
	lower := asciiLower(s)
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		j := strings.Index(lower[i:], v)
		if j < 0 {
			break
		}
		start, end := i+j, i+j+len(v)
		if len(v) < 8 && (start > 0 && isWordByte(s[start-1]) && isWordByte(v[0]) || end < len(s) && isWordByte(s[end]) && isWordByte(v[len(v)-1])) {
			i = start + 1
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(Placeholder(kind))
		r.Counts[kind]++
		last, i = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}
