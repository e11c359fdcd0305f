package redact

import (
	"regexp"
	"strings"
)

// secretOpen is a JSON key naming a secret whose value is an object or an
// array: the string and number rules see no value there, though a body
// decoded into an object (a program's fromjson, a pretty-printed payload,
// a client that sends credentials as an object) keeps the secret inside.
var secretOpen = regexp.MustCompile(`(?i)"` + secretWord + `"\s*:\s*[\[{]`)

// containers redacts every scalar under a key that names a secret when its
// value is an object or an array: each string's content and each number
// becomes the Secret placeholder (learnt, with Carry), the structure and
// the inner keys stay, and true, false, null and "" stay. A value cut
// short (a shortened body) is redacted to the end of s.
func (r *Redactor) containers(s string) string {
	if !containsAny(strings.ToLower(s), secretHints) {
		return s
	}
	locs := secretOpen.FindAllStringIndex(s, -1)
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		open := loc[1] - 1
		if open < last { // inside a container already redacted
			continue
		}
		end := closing(s, open)
		b.WriteString(s[last:open])
		r.leaves(&b, s[open:end])
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// closing is the index just after the bracket that closes the one at
// open, strings skipped; len(s) when s ends first.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '"':
			i, _ = stringEnd(s, i)
			i--
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// stringEnd is the index just after the JSON string that starts at the
// quote at i, and whether it was closed (else len(s)).
func stringEnd(s string, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(s), false
}

// leaves writes doc (an object or array, maybe cut short) to b with each
// scalar value redacted.
func (r *Redactor) leaves(b *strings.Builder, doc string) {
	for i := 0; i < len(doc); {
		c := doc[i]
		switch {
		case c == '"':
			end, closed := stringEnd(doc, i)
			lit := doc[i:end]
			content := lit[1:]
			if closed {
				content = lit[1 : len(lit)-1]
			}
			if isKey(doc, end) || content == "" || alreadyRedacted(content) {
				b.WriteString(lit)
			} else {
				b.WriteString(`"` + Placeholder(Secret))
				if closed {
					b.WriteString(`"`)
				}
				r.Counts[Secret]++
				r.learn(content, Secret)
			}
			i = end
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(doc) && strings.IndexByte("0123456789.eE+-", doc[j]) >= 0 {
				j++
			}
			b.WriteString(Placeholder(Secret))
			r.Counts[Secret]++
			r.learn(doc[i:j], Secret)
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
}

// isKey tells a string that ends at end and is followed by a colon.
func isKey(doc string, end int) bool {
	rest := strings.TrimLeft(doc[end:], " \t\r\n")
	return strings.HasPrefix(rest, ":")
}
