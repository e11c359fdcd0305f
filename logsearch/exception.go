package logsearch

import (
	"cmp"
	"encoding/json"
	"regexp"
	"strings"
)

// exceptionRE finds "Type: message" at the end of a line, where Type is an
// identifier, maybe qualified (java.lang.X, Foo::Bar), that begins the line
// or follows a space or bracket. Anchoring at the end of the line keeps
// stack frames ("at com.shop.ErrorHandler.handle(…)") out.
var exceptionRE = regexp.MustCompile(`(?:^|[\s\[("'=])((?:[A-Za-z_$][\w$]*(?:\.|::))*[A-Z][\w$]*)(?::\s*(.*?))?\s*$`)

// strongSuffixes end the names of things that are errors.
var strongSuffixes = []string{
	"Error", "Exception", "Fault", "Failure", "Failed", "Timeout", "NotFound",
	"Denied", "Rejected", "Conflict", "Exceeded", "Panic",
}

// Exception names the exception in the lines of a story: the last line that
// names an error type ("UnsupportedVersionError: version 2", "Caused by:
// java.io.IOException: disk full"), or a Go panic, or a Lambda error document
// ({"errorType", "errorMessage"}). A CamelCase name with a message
// ("SkuNotFound: SKU-9") counts when nothing has an error-like name. It
// returns "" when no line names an exception.
//
// The last one wins because a Python traceback ends with its exception, and
// a Java trace's last "Caused by" is the root cause.
func Exception(lines []string) string {
	strong, weak := "", ""
	for _, l := range lines {
		s, w := exceptionIn(l)
		if s != "" {
			strong = s
		}
		if w != "" {
			weak = w
		}
	}
	if strong != "" {
		return strong
	}
	return weak
}

// exceptionIn returns the exception a line names, as strong (an error-like
// type name, a panic, a Lambda error document) or weak (another CamelCase
// name followed by a message).
func exceptionIn(line string) (strong, weak string) {
	line = strings.TrimSpace(line)
	if doc := lambdaError(line); doc != "" {
		return doc, ""
	}
	if i := strings.Index(line, "panic: "); i >= 0 && (i == 0 || line[i-1] == ' ') {
		return strings.TrimSpace(line[i:]), ""
	}
	// The Lambda runtime's own line for a timeout names no type: "<time>
	// <request id> Task timed out after 6.01 seconds".
	if i := strings.Index(line, "Task timed out after "); i >= 0 {
		return line[i:], ""
	}
	// The leftmost "Name: message" may be a label ("Handler: KeyError: 'x'"):
	// look again after each name until an error-like one turns up.
	for off := 0; off < len(line); {
		m := exceptionRE.FindStringSubmatchIndex(line[off:])
		if m == nil {
			break
		}
		name, msg := line[off+m[2]:off+m[3]], ""
		if m[4] >= 0 {
			msg = line[off+m[4] : off+m[5]]
		}
		s, w := judge(name, msg)
		if s != "" {
			return s, ""
		}
		if weak == "" {
			weak = w
		}
		off += m[3]
	}
	return "", weak
}

// judge tells whether "name: msg" is an exception, strong or weak.
func judge(name, msg string) (strong, weak string) {
	exc := name
	if msg != "" {
		exc = name + ": " + msg
	}
	short := name[strings.LastIndexAny(name, ".:")+1:]
	if strings.HasPrefix(short, "Invalid") {
		return exc, ""
	}
	for _, suf := range strongSuffixes {
		if strings.HasSuffix(short, suf) {
			return exc, ""
		}
	}
	if msg != "" && isCamel(short) && !strings.HasSuffix(short, "Id") && !strings.HasSuffix(short, "ID") {
		return "", exc
	}
	return "", ""
}

// isCamel tells a name with an upper-case letter after a lower-case one.
func isCamel(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// lambdaError reads the error document Lambda's runtimes log for an
// unhandled exception, also when a structured logger nests it under "error".
func lambdaError(line string) string {
	if !strings.HasPrefix(line, "{") {
		if i := strings.Index(line, "{\""); i > 0 {
			line = line[i:]
		} else {
			return ""
		}
	}
	var doc struct {
		Type    string          `json:"errorType"`
		Message string          `json:"errorMessage"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal([]byte(line), &doc) != nil {
		return ""
	}
	if doc.Type != "" {
		return strings.TrimSpace(doc.Type + ": " + doc.Message)
	}
	var text string
	if json.Unmarshal(doc.Error, &text) == nil {
		s, w := exceptionIn(text)
		return s + w
	}
	var e struct {
		ErrorType    string `json:"errorType"`
		Type         string `json:"type"`
		ErrorMessage string `json:"errorMessage"`
		Message      string `json:"message"`
	}
	if json.Unmarshal(doc.Error, &e) != nil {
		return ""
	}
	if t := cmp.Or(e.ErrorType, e.Type); t != "" {
		return strings.TrimSpace(t + ": " + cmp.Or(e.ErrorMessage, e.Message))
	}
	return ""
}
