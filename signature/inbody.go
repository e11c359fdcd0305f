package signature

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// BodyErrorFields are the top-level payload fields whose text classify
// reads as the message's error, in order of preference: Step Functions'
// Error (with Cause), a Lambda error document's errorType/errorMessage, and
// the fields in-house wrappers use. Besides these, any member whose value
// is an {"Error", "Cause"} object — what a Catch with ResultPath "$.x"
// adds — counts under its own name.
var BodyErrorFields = []string{"Error", "errorMessage", "error", "error_message", "failureReason", "failure_reason", "exception"}

// maxBodyError bounds the error text taken from a body.
const maxBodyError = 4096

// hints are bytes every payload that carries one of the fields holds: a
// payload with none is passed over without decoding.
var hints = [][]byte{[]byte(`"Error"`), []byte(`"error`), []byte(`"Cause"`), []byte(`"failure`), []byte(`"exception"`)}

// InBody returns the error text a JSON object payload carries and the field
// it came from, or "" when it carries none. skip names fields to pass over
// (fields the healthy messages have too are data, not an error); nil skips
// none.
func InBody(payload []byte, skip func(field string) bool) (text, field string) {
	if len(payload) == 0 || payload[0] != '{' || !hasHint(payload) {
		return "", ""
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(payload, &doc) != nil {
		return "", ""
	}
	use := func(f string) bool { _, ok := doc[f]; return ok && (skip == nil || !skip(f)) }
	switch {
	case use("Error") || use("Cause"):
		text, field = CauseText(str(doc, "Error"), rawText(doc["Cause"])), "Error"
	case use("errorMessage") || use("errorType"):
		text, field = joinTyped(str(doc, "errorType"), str(doc, "errorMessage")), "errorMessage"
	}
	if text == "" {
		text, field = conventional(doc, use)
	}
	if text == "" {
		text, field = catchResult(doc, use)
	}
	text = strings.TrimSpace(text)
	if len(text) > maxBodyError {
		text = strings.ToValidUTF8(text[:maxBodyError], "")
	}
	if text == "" {
		return "", ""
	}
	return text, field
}

func hasHint(b []byte) bool {
	for _, h := range hints {
		if bytes.Contains(b, h) {
			return true
		}
	}
	return false
}

// conventional reads error, error_message, failureReason, failure_reason
// and exception: a string as it is, an object as an error document.
func conventional(doc map[string]json.RawMessage, use func(string) bool) (string, string) {
	for _, f := range BodyErrorFields[2:] {
		if !use(f) {
			continue
		}
		v := doc[f]
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) == nil && obj != nil {
			if t := errorDoc(obj); t != "" {
				return t, f
			}
			continue
		}
		if t := rawText(v); t != "" && t != "false" {
			return t, f
		}
	}
	return "", ""
}

// catchResult finds an {"Error", "Cause"} object under any top-level key.
func catchResult(doc map[string]json.RawMessage, use func(string) bool) (string, string) {
	keys := slices.Sorted(maps.Keys(doc)) // several: the same one every time
	for _, k := range keys {
		v := doc[k]
		if len(v) == 0 || v[0] != '{' || !bytes.Contains(v, []byte(`"Error"`)) || !use(k) {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) != nil {
			continue
		}
		if e := str(obj, "Error"); e != "" {
			return CauseText(e, rawText(obj["Cause"])), k
		}
	}
	return "", ""
}
