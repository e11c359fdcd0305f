package classify

import (
	"github.com/mfdlq/mfdlq/envelope"
)

// Bounds of the field profiles: memory grows with groups × fields, never
// with messages.
const (
	maxProfilePaths    = 256 // field paths a baseline profile keeps; a group tracks only these
	maxProfileValues   = 64  // distinct values a baseline keeps per field before it is no enum
	maxGroupNewValues  = 16  // values absent from the baseline a group counts per field
	maxEnumValues      = 20  // an enum-like field holds at most this many values …
	minEnumSupport     = 10  // … in at least this many baseline messages, each value 3 times on average
	minTypeSupport     = 3   // baseline messages a field needs before its types are trusted
	maxProfileDepth    = 8   // nesting levels walked
	maxProfileElements = 16  // array elements walked per array
	maxPathBytes       = 160
)

// JSON types of a profiled value.
const (
	tObject = iota
	tArray
	tString
	tNumber
	tBool
	tNull
	nTypes
)

var typeNames = [nTypes]string{"object", "array", "string", "number", "boolean", "null"}

// jsonType is the type of the raw JSON value v.
func jsonType(v []byte) int {
	switch v[0] {
	case '{':
		return tObject
	case '[':
		return tArray
	case '"':
		return tString
	case 't', 'f':
		return tBool
	case 'n':
		return tNull
	}
	return tNumber
}

// walker visits every field path of a JSON payload: "amount",
// "customer.email", "items[].sku". Arrays are read by their first
// maxProfileElements elements.
type walker struct {
	path  []byte
	visit func(path []byte, depth, typ int, raw []byte)
}

// walk visits the members of the valid JSON value v.
func (w *walker) walk(v []byte, depth int) {
	if depth >= maxProfileDepth || len(v) < 2 {
		return
	}
	switch v[0] {
	case '{':
		base := len(w.path)
		eachMember(v, func(k, val []byte) {
			w.path = w.path[:base]
			if base > 0 {
				w.path = append(w.path, '.')
			}
			w.path = append(w.path, k...)
			if len(w.path) <= maxPathBytes {
				t := jsonType(val)
				w.visit(w.path, depth+1, t, val)
				if t == tObject || t == tArray {
					w.walk(val, depth+1)
				}
			}
		})
		w.path = w.path[:base]
	case '[':
		base := len(w.path)
		w.path = append(w.path, "[]"...)
		n := 0
		eachElement(v, func(val []byte) bool {
			t := jsonType(val)
			w.visit(w.path, depth+1, t, val)
			if t == tObject || t == tArray {
				w.walk(val, depth+1)
			}
			n++
			return n < maxProfileElements
		})
		w.path = w.path[:base]
	}
}

// eachMember calls fn for each member of the valid JSON object obj.
func eachMember(obj []byte, fn func(k, v []byte)) {
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] != '}' {
		end := envelope.StringEnd(obj, i)
		key := obj[i+1 : end-1]
		i = skipSpace(obj, end)
		i = skipSpace(obj, i+1)
		vEnd := envelope.ValueEnd(obj, i)
		fn(key, obj[i:vEnd])
		i = skipSpace(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
}

// eachElement calls fn for each element of the valid JSON array arr until
// fn returns false.
func eachElement(arr []byte, fn func(v []byte) bool) {
	i := skipSpace(arr, 1)
	for i < len(arr) && arr[i] != ']' {
		vEnd := envelope.ValueEnd(arr, i)
		if !fn(arr[i:vEnd]) {
			return
		}
		i = skipSpace(arr, vEnd)
		if i < len(arr) && arr[i] == ',' {
			i = skipSpace(arr, i+1)
		}
	}
}

// isTopFingerprintKey tells a top-level schema-naming field (version, type
// …): its values are compared whatever they look like.
func isTopFingerprintKey(path []byte, depth int) bool {
	if depth != 1 {
		return false
	}
	for _, k := range fingerprintKeys {
		if string(path) == k {
			return true
		}
	}
	return false
}

// enumText is the value of a scalar worth counting as an enum member: a
// word-like string ("PAID", "eu-west-1", "credit_card") — not an id, a
// time, a number or free text — or, for a top-level schema field, any
// scalar. ok is false for anything else.
func enumText(raw []byte, typ int, top bool) (string, bool) {
	if top && typ != tObject && typ != tArray {
		return valueText(raw), true
	}
	if typ != tString {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	if len(s) == 0 || len(s) > 40 || !isLetter(s[0]) {
		return "", false
	}
	run := 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			run++
			if run > 2 {
				return "", false
			}
			continue
		case isLetter(c), c == '_', c == '-', c == '.', c == ':', c == '/', c == ' ':
		default:
			return "", false
		}
		run = 0
	}
	return string(s), true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
