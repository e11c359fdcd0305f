package envelope

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// The functions here walk JSON that json.Valid has accepted, so they do not
// check syntax again; each returns positions inside the input and allocates
// nothing, which keeps detection cheap on a million-message file.

// eachMember calls fn for every top-level member of the valid JSON object
// obj, in order, with the key's raw bytes (between the quotes, escapes kept)
// and the value's raw bytes. It stops when fn returns false.
func eachMember(obj []byte, fn func(key, val []byte) bool) {
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] != '}' {
		end := StringEnd(obj, i)
		key := obj[i+1 : end-1]
		i = skipSpace(obj, end)
		i = skipSpace(obj, i+1) // the colon
		vEnd := ValueEnd(obj, i)
		if !fn(key, obj[i:vEnd]) {
			return
		}
		i = skipSpace(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
}

// eachElement calls fn for every element of the valid JSON array arr.
func eachElement(arr []byte, fn func(val []byte) bool) {
	i := skipSpace(arr, 1)
	for i < len(arr) && arr[i] != ']' {
		vEnd := ValueEnd(arr, i)
		if !fn(arr[i:vEnd]) {
			return
		}
		i = skipSpace(arr, vEnd)
		if i < len(arr) && arr[i] == ',' {
			i = skipSpace(arr, i+1)
		}
	}
}

// member returns the raw value of the top-level key name in obj (the last
// one when the key repeats, as encoding/json decides), or nil.
func member(obj []byte, name string) []byte {
	var out []byte
	eachMember(obj, func(k, v []byte) bool {
		if string(k) == name {
			out = v
		}
		return true
	})
	return out
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// StringEnd returns the index just past the JSON string starting at b[i] == '"'.
func StringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// ValueEnd returns the index just past the valid JSON value starting at i
// (len(b) when it runs off the end). With StringEnd it is the one scanner
// of raw JSON that envelope detection and classify's shape reading share:
// bodies are scanned in place, never decoded into maps.
func ValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = StringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	return j
}

// isString, isObject and isArray tell a raw value's JSON type.
func isString(v []byte) bool { return len(v) >= 2 && v[0] == '"' }
func isObject(v []byte) bool { return len(v) >= 2 && v[0] == '{' }
func isArray(v []byte) bool  { return len(v) >= 2 && v[0] == '[' }

// isNonEmptyString tells a JSON string with at least one character.
func isNonEmptyString(v []byte) bool { return isString(v) && len(v) > 2 }

// stringIs tells whether the raw JSON string v equals s. Escaped strings
// never match: the values compared here (Notification, aws:s3, "0") are
// plain ASCII that AWS writes without escapes.
func stringIs(v []byte, s string) bool {
	return isString(v) && string(v[1:len(v)-1]) == s
}

// stringHas tells whether the raw JSON string v contains s.
func stringHas(v []byte, s string) bool {
	return isString(v) && bytes.Contains(v[1:len(v)-1], []byte(s))
}

// text returns the raw JSON string v decoded, or "" when v is not a string.
func text(v []byte) string {
	if !isString(v) {
		return ""
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	return string(unescape(nil, inner))
}

// unescape appends the decoded content of a valid JSON string (without its
// quotes) to dst. encoding/json does the same through reflection; an SNS
// Message is decoded once per message, so this path is worth its own code.
func unescape(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r) && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if r2 := utf16.DecodeRune(r, hex4(s[i+3:i+7])); r2 != utf8.RuneError {
					r = r2
					i += 6
				}
			}
			if utf16.IsSurrogate(r) {
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		default: // " \ /
			dst = append(dst, s[i])
		}
	}
	return dst
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}
