package redact

import (
	"encoding/json"
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
		if len(f) < minCarry || alreadyRedacted(f) || strings.Contains(f, "[redacted:") || len(r.known) >= maxKnown {
			continue
		}
		switch f {
		case "true", "false", "null":
			continue
		}
		if _, ok := r.known[f]; !ok {
			r.known[f] = kind
		}
		// The same value as a JSON string's content: quoted into a
		// document inside a string, it gains escapes.
		if q := strings.Trim(quote(f), `"`); q != f && len(r.known) < maxKnown {
			if _, ok := r.known[q]; !ok {
				r.known[q] = kind
			}
		}
	}
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
	vals := make([]string, 0, len(r.known))
	for v := range r.known {
		if strings.Contains(s, v) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return s
	}
	sort.Slice(vals, func(i, j int) bool {
		return len(vals[i]) > len(vals[j]) || len(vals[i]) == len(vals[j]) && vals[i] < vals[j]
	})
	if r.Counts == nil {
		r.Counts = Counts{}
	}
	for _, v := range vals {
		s = r.replaceKnown(s, v, r.known[v])
	}
	return s
}

// replaceKnown replaces each occurrence of v in s that stands alone
// enough (see Known) by kind's placeholder.
func (r *Redactor) replaceKnown(s, v, kind string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], v)
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
