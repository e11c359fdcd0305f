package redact

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// Bounds of the descent into JSON held in JSON strings: an SNS Message
// holding an EventBridge event whose detail is a string holding a Lambda
// event body is four levels; a hostile body may nest deeper or be large.
const (
	// maxNestDepth is how many string levels are decoded. Deeper levels
	// keep the text rules only.
	maxNestDepth = 8
	// maxNested is the largest string literal decoded (bytes, escaped).
	maxNested = 1 << 20
)

// stringLiteral is a JSON string literal holding an escaped quote: the
// only strings that can hold a JSON document with keys.
var stringLiteral = regexp.MustCompile(`"(?:[^"\\]|\\.)*\\"(?:[^"\\]|\\.)*"`)

// nested redacts the JSON documents held in JSON string fields of s —
// an SNS notification's Message, an EventBridge detail sent as a string, a
// Lambda event's body, a Step Functions Cause — as their own text, so that
// the key rules ("phone_number": …, "password": …) see the keys whatever
// the escaping, and re-escapes the result in place. It descends level by
// level up to maxNestDepth.
func (r *Redactor) nested(s string, depth int) string {
	if depth >= maxNestDepth || !strings.Contains(s, `\"`) {
		return s
	}
	return stringLiteral.ReplaceAllStringFunc(s, func(lit string) string {
		if len(lit) > maxNested {
			return lit
		}
		var inner string
		if json.Unmarshal([]byte(lit), &inner) != nil {
			return lit
		}
		red := r.redact(inner, depth+1)
		if red == inner {
			return lit
		}
		return quote(red)
	})
}

// quote is s as a JSON string literal, without the HTML escapes
// json.Marshal adds, so that an unchanged neighbour keeps its bytes.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) != nil {
		return `"` + Placeholder(Secret) + `"`
	}
	return strings.TrimSuffix(b.String(), "\n")
}
