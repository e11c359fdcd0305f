package redact

import "strings"

// containers redacts every scalar under a key that names a secret when its
// value is an object or an array: the string and number rules see no
// value there, though a body decoded into an object (a program's fromjson,
// a pretty-printed payload, a client that sends credentials as an object)
// keeps the secret inside. Each string's content and each number becomes
// the Secret placeholder (learnt, with Carry); the structure and the inner
// keys stay, and true, false, null and "" stay. A value cut short (a
// shortened body) is redacted to the end of s. One pass over s: at each
// bracket, the key before it (if any) is read backwards and matched whole.
func (r *Redactor) containers(s string) string {
	if !containsAny(strings.ToLower(s), secretHints) {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			i, _ = stringEnd(s, i)
			i--
		case '[', '{':
			if !secretKey.MatchString(keyBefore(s, i)) {
				continue
			}
			end := closing(s, i)
			b.WriteString(s[last:i])
			r.leaves(&b, s[i:end])
			last = end
			i = end - 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// keyBefore is the JSON key whose value starts at open ("" when none):
// `"key"`, white space, a colon, white space, then open.
func keyBefore(s string, open int) string {
	j := open - 1
	for j >= 0 && isSpace(s[j]) {
		j--
	}
	if j < 0 || s[j] != ':' {
		return ""
	}
	j--
	for j >= 0 && isSpace(s[j]) {
		j--
	}
	if j < 1 || s[j] != '"' {
		return ""
	}
	k := strings.LastIndexByte(s[:j], '"')
	if k < 0 || j-k > 256 {
		return ""
	}
	return s[k+1 : j]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

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
