package envelope

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Path is a --payload path: the jq subset `.a.b`, `.a[0]`, `."detail-type"`
// and `.["key"]` that names where an in-house envelope keeps its payload.
type Path []step

// step is one object key or array index of a Path.
type step struct {
	key   string
	index int // -1 for a key
}

// ParsePath reads a --payload path. "" is the empty path (no override).
func ParsePath(s string) (Path, error) {
	if s == "" {
		return nil, nil
	}
	bad := func(why string) (Path, error) {
		return nil, fmt.Errorf("--payload %q: %s; use a jq path such as .data or .detail.order or .items[0]", s, why)
	}
	if s[0] != '.' {
		return bad("a path starts with a dot")
	}
	var p Path
	for i := 0; i < len(s); {
		var st step
		var why string
		switch {
		case s[i] == '.' && i+1 < len(s) && s[i+1] == '[':
			i++ // .["key"] and .[0] are [..] after a dot
			continue
		case s[i] == '.':
			st, i, why = dotStep(s, i)
		case s[i] == '[':
			st, i, why = bracketStep(s, i)
		default:
			why = fmt.Sprintf("unexpected %q at %d", s[i], i)
		}
		if why != "" {
			return bad(why)
		}
		p = append(p, st)
	}
	return p, nil
}

// dotStep reads the key after the dot at s[i] (`.a` or `."a-b"`): the step,
// where the next one starts, or why the path is wrong.
func dotStep(s string, i int) (st step, next int, why string) {
	if i+1 < len(s) && s[i+1] == '"' {
		key, n, err := quoted(s[i+1:])
		if err != nil {
			return step{}, 0, err.Error()
		}
		return step{key: key, index: -1}, i + 1 + n, ""
	}
	j := i + 1
	for j < len(s) && isIdent(s[j]) {
		j++
	}
	if j == i+1 {
		if len(s) == 1 {
			return step{}, 0, "the path . is the body itself: leave --payload out"
		}
		return step{}, 0, fmt.Sprintf("no key after the dot at %d", i)
	}
	return step{key: s[i+1 : j], index: -1}, j, ""
}

// bracketStep reads the [..] at s[i] (`["key"]` or `[0]`): the step, where
// the next one starts, or why the path is wrong.
func bracketStep(s string, i int) (st step, next int, why string) {
	end := strings.IndexByte(s[i:], ']')
	if end < 0 {
		return step{}, 0, "[ without ]"
	}
	inner := s[i+1 : i+end]
	if strings.HasPrefix(inner, `"`) {
		key, n, err := quoted(inner)
		if err != nil || n != len(inner) {
			return step{}, 0, "a bracketed key is one quoted string"
		}
		return step{key: key, index: -1}, i + end + 1, ""
	}
	n, err := strconv.Atoi(inner)
	if err != nil || n < 0 {
		return step{}, 0, fmt.Sprintf("[%s] is not an array index", inner)
	}
	return step{index: n}, i + end + 1, ""
}

// quoted reads the JSON string at the start of s: its value and length.
func quoted(s string) (string, int, error) {
	end := StringEnd([]byte(s), 0)
	var v string
	if end > len(s) || json.Unmarshal([]byte(s[:end]), &v) != nil {
		return "", 0, fmt.Errorf("unterminated quoted key")
	}
	return v, end, nil
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// String writes the path back in jq form.
func (p Path) String() string {
	var b strings.Builder
	for _, s := range p {
		switch {
		case s.index >= 0:
			fmt.Fprintf(&b, "[%d]", s.index)
		case isPlain(s.key):
			b.WriteString("." + s.key)
		default:
			b.WriteString("." + strconv.Quote(s.key))
		}
	}
	return b.String()
}

func isPlain(k string) bool {
	if k == "" || k[0] >= '0' && k[0] <= '9' {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !isIdent(k[i]) {
			return false
		}
	}
	return true
}

// lookup returns the raw value at p in the valid JSON document b, or nil.
func (p Path) lookup(b []byte) []byte {
	for _, s := range p {
		var next []byte
		switch {
		case s.index >= 0 && isArray(b):
			n := 0
			eachElement(b, func(v []byte) bool {
				if n == s.index {
					next = v
				}
				n++
				return next == nil
			})
		case s.index < 0 && isObject(b):
			next = memberDecoded(b, s.key)
		}
		if next == nil {
			return nil
		}
		b = next
	}
	return b
}

// memberDecoded is member for keys that may be written with escapes.
func memberDecoded(obj []byte, name string) []byte {
	var out []byte
	eachMember(obj, func(k, v []byte) bool {
		if string(k) == name || strings.IndexByte(string(k), '\\') >= 0 && string(unescape(nil, k)) == name {
			out = v
		}
		return true
	})
	return out
}

// applyPath replaces the payload with the value at p. A string value that
// holds JSON (an in-house envelope that stringifies, as SNS does) is read
// as that JSON.
func (e *Envelope) applyPath(p Path) {
	var v []byte
	if e.PayloadJSON {
		v = p.lookup(e.Payload)
	}
	if v == nil {
		e.Payload, e.PayloadJSON = nil, false
		e.Problem = "no " + p.String() + " in the payload (--payload)"
		return
	}
	if !isString(v) {
		e.Payload, e.PayloadJSON = v, true
		return
	}
	s := v[1 : len(v)-1]
	if strings.IndexByte(string(s), '\\') >= 0 {
		s = unescape(nil, s)
	}
	e.Payload, e.PayloadJSON = s, json.Valid(s)
}
