package signature

import (
	"encoding/json"
	"fmt"
	"strings"
)

// maxHeadlineInput bounds how much of a text Headline reads: an error of
// megabytes names its kind in its first lines.
const maxHeadlineInput = 16 << 10

// Headline picks the line of text that names the error, reading a
// multi-line or structured text whole:
//   - a Lambda error document ({"errorType", "errorMessage"}) is
//     "errorType: errorMessage";
//   - a Step Functions error ({"Error", "Cause"}, Cause often itself JSON)
//     is read by CauseText;
//   - a JSON list of issues (zod, ajv, a hand-made validator), bare or after
//     a "ZodError: " prefix, is "N issues: code at path: message; …";
//   - a Python traceback names its exception on its last unindented line;
//   - a Java trace's root cause is its last "Caused by:" line;
//   - otherwise the first line, unless it names no error ("[", "{", a
//     banner) and a later line does ("ValidationError: …").
func Headline(text string) string {
	text = strings.TrimSpace(text)
	if len(text) > maxHeadlineInput {
		text = strings.ToValidUTF8(text[:maxHeadlineInput], "")
	}
	if h, ok := jsonHeadline(text); ok {
		return h
	}
	if root, _ := Chain(text); root != "" {
		return root // the error the others were raised around
	}
	if prefix, rest, ok := strings.Cut(text, ": "); ok && isName(prefix) {
		if h, ok := jsonHeadline(strings.TrimSpace(rest)); ok {
			return prefix + ": " + h
		}
	}
	first, rest, multi := strings.Cut(text, "\n")
	if !multi {
		return text
	}
	lines := strings.Split(rest, "\n")
	if strings.HasPrefix(first, "Traceback (most recent call last)") {
		// A Python traceback names the exception on its last unindented line.
		for i := len(lines) - 1; i >= 0; i-- {
			l := strings.TrimRight(lines[i], " \t\r")
			if l != "" && l[0] != ' ' && l[0] != '\t' {
				return l
			}
		}
		return strings.TrimSpace(first)
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if cause, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "Caused by: "); ok && cause != "" {
			return cause
		}
	}
	first = strings.TrimSpace(first)
	if namesError(first) {
		return first
	}
	for _, l := range lines {
		if l = strings.TrimSpace(l); namesError(l) && !isFrame(l) {
			return l
		}
	}
	return first
}

// isName tells an exception-like name: a prefix such as "ZodError" or
// "pydantic_core.ValidationError", no spaces.
func isName(s string) bool {
	if s == "" || len(s) > 120 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isWordByte(c) && c != '.' && c != '_' && c != '$' {
			return false
		}
	}
	return true
}

// namesError tells a line that names an error: "XError: …", "XException
// …", "panic: …", or words such as "error", "failed", "invalid".
func namesError(l string) bool {
	if len(l) < 3 {
		return false
	}
	lower := strings.ToLower(l)
	for _, w := range []string{"error", "exception", "fail", "invalid", "panic", "timed out", "timeout", "denied", "not found", "refused"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// isFrame tells a stack frame: "at com.x.Y(…)", `File "x.py", line 3`.
func isFrame(l string) bool {
	return strings.HasPrefix(l, "at ") || strings.HasPrefix(l, "File \"") || strings.HasPrefix(l, "...")
}

// jsonHeadline reads an error that is JSON: an error document or a list of
// issues.
func jsonHeadline(text string) (string, bool) {
	if text == "" || (text[0] != '{' && text[0] != '[') || !json.Valid([]byte(text)) {
		return "", false
	}
	if text[0] == '[' {
		var issues []map[string]json.RawMessage
		if json.Unmarshal([]byte(text), &issues) != nil || len(issues) == 0 {
			return "", false
		}
		return issuesText(issues)
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &doc) != nil {
		return "", false
	}
	if t := errorDoc(doc); t != "" {
		return t, true
	}
	for _, k := range []string{"issues", "errors", "details"} {
		var issues []map[string]json.RawMessage
		if json.Unmarshal(doc[k], &issues) == nil && len(issues) > 0 {
			if h, ok := issuesText(issues); ok {
				if name := str(doc, "name"); name != "" {
					h = name + ": " + h
				}
				return h, true
			}
		}
	}
	return "", false
}

// errorDoc reads the error documents runtimes write: Lambda's errorType and
// errorMessage, Step Functions' Error and Cause, and a plain {"name"|"code"|
// "type", "message"}.
func errorDoc(doc map[string]json.RawMessage) string {
	if typ, msg := str(doc, "errorType"), str(doc, "errorMessage"); typ != "" || msg != "" {
		return joinTyped(typ, msg)
	}
	if e, c := str(doc, "Error"), rawText(doc["Cause"]); e != "" || c != "" {
		return CauseText(e, c)
	}
	msg := str(doc, "message")
	if msg == "" {
		msg = str(doc, "Message")
	}
	if msg == "" {
		return ""
	}
	for _, k := range []string{"name", "code", "type", "errorCode", "Code", "exception_class", "exceptionClass", "error_class", "exc_type", "class"} {
		if t := str(doc, k); t != "" {
			return joinTyped(t, msg)
		}
	}
	return msg
}

// CauseText is a Step Functions error as one text: Error (the error name,
// e.g. "States.Timeout" or a Lambda function's errorType) and Cause, which
// for a Lambda task is itself a JSON error document. A generic name
// (States.TaskFailed, States.ALL) gives way to what the cause names.
func CauseText(name, cause string) string {
	c := strings.TrimSpace(cause)
	if c != "" {
		c = Headline(c)
	}
	switch {
	case c == "":
		return name
	case name == "", name == "States.TaskFailed", name == "States.ALL", strings.HasPrefix(c, name):
		return c
	}
	return name + ": " + c
}

// issuesText writes a list of validation issues: how many, then up to
// three as "code at path: message".
func issuesText(issues []map[string]json.RawMessage) (string, bool) {
	var parts []string
	for i, is := range issues {
		if i == 3 {
			break
		}
		msg := str(is, "message")
		if msg == "" {
			msg = str(is, "msg")
		}
		if msg == "" {
			return "", false // not a list of issues
		}
		code := str(is, "code")
		if code == "" {
			code = str(is, "keyword")
		}
		if code == "" {
			code = str(is, "type")
		}
		p := pathText(is)
		part := msg
		switch {
		case code != "" && p != "":
			part = code + " at " + p + ": " + msg
		case code != "":
			part = code + ": " + msg
		case p != "":
			part = p + ": " + msg
		}
		parts = append(parts, part)
	}
	h := strings.Join(parts, "; ")
	if len(issues) > 3 {
		h += fmt.Sprintf("; and %d more", len(issues)-3)
	}
	word := "issues"
	if len(issues) == 1 {
		word = "issue"
	}
	return fmt.Sprintf("%d validation %s: %s", len(issues), word, h), true
}

// pathText is an issue's path: zod's ["items",0,"qty"], ajv's
// instancePath "/items/0/qty", pydantic's loc.
func pathText(is map[string]json.RawMessage) string {
	for _, k := range []string{"path", "loc"} {
		var elems []any
		if json.Unmarshal(is[k], &elems) == nil && len(elems) > 0 {
			var s []string
			for _, e := range elems {
				s = append(s, fmt.Sprint(e))
			}
			return strings.Join(s, ".")
		}
		if p := str(is, k); p != "" {
			return p
		}
	}
	if p := str(is, "instancePath"); p != "" {
		return strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/", ".")
	}
	return ""
}

func joinTyped(typ, msg string) string {
	switch {
	case typ == "":
		return strings.TrimSpace(msg)
	case msg == "", strings.HasPrefix(msg, typ):
		return strings.TrimSpace(typ + strings.TrimPrefix(msg, typ))
	}
	return strings.TrimSpace(typ + ": " + msg)
}

// str is doc[k] when it is a JSON string.
func str(doc map[string]json.RawMessage, k string) string {
	var s string
	if v, ok := doc[k]; ok && json.Unmarshal(v, &s) == nil {
		return s
	}
	return ""
}

// rawText is a JSON string's text, or any other value's JSON.
func rawText(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}
