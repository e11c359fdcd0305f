package classify

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/signature"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// The fallback, when no known source gave an error: message attributes
// and top-level payload fields whose names say error, exception, fault,
// failure or reason ("lastError", "x-failure-reason", "rejectionReason"),
// except those the baseline's healthy messages carry too, which are
// business data, and those whose value is no text (a count, a time, true).

var errorWords = []string{"error", "exception", "fault", "failure", "reason"}

// notErrorSuffixes end names that count or date a failure, not describe it.
var notErrorSuffixes = []string{"count", "time", "timestamp", "at", "date", "attempts", "retries", "id", "ids", "queue", "address", "host", "url", "uri"}

// errorish tells a name that says it holds an error.
func errorish(name string) bool {
	if !mayBeErrorish(name) {
		return false // most names: no allocation, no lowercasing
	}
	n := strings.ToLower(name)
	switch {
	case !slices.ContainsFunc(errorWords, func(w string) bool { return strings.Contains(n, w) }):
		return false
	case strings.HasSuffix(n, "reason"):
		return true
	}
	return !slices.ContainsFunc(notErrorSuffixes, func(s string) bool { return strings.HasSuffix(n, s) })
}

// mayBeErrorish is a cheap first look: a name holding one of errorWords
// holds 'r' or 'R' and is at least five bytes long.
func mayBeErrorish(name string) bool {
	return len(name) >= 5 && strings.ContainsAny(name, "rR")
}

// typeish tells an error-ish name that holds the error's kind rather than
// its text.
func typeish(name string) bool {
	n := strings.ToLower(name)
	return slices.ContainsFunc([]string{"type", "class", "code", "kind", "fqcn", "name"}, func(w string) bool { return strings.HasSuffix(n, w) })
}

// texty tells a value that can be an error's text: not empty, not a
// number, a boolean, a time or a placeholder.
func texty(v string) bool {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "", "null", "none", "nil", "false", "true", "0", "ok", "success", "n/a", "-":
		return false
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return false
	}
	if _, err := time.Parse(time.RFC3339, v); err == nil {
		return false
	}
	return true
}

// fallbackAttributes reads error-ish attributes: the kind from a name such
// as FailureType, the text from the others, in name order.
func fallbackAttributes(m *sqsjson.Message, rule *BodyErrors) errorRead {
	if len(m.MessageAttributes) == 0 {
		return errorRead{}
	}
	names := errorishAttributes(m, rule)
	var typ, msg, typName, msgName string
	for _, n := range names {
		v, ok := m.StringAttribute(n)
		if !ok || !texty(v) {
			continue
		}
		switch {
		case typeish(n) && typ == "":
			typ, typName = strings.TrimSpace(v), n
		case !typeish(n) && msg == "":
			msg, msgName = strings.TrimSpace(v), n
		}
	}
	t := joinTyped(typ, msg)
	if t == "" {
		return errorRead{}
	}
	names = names[:0]
	for _, n := range []string{typName, msgName} {
		if n != "" {
			names = append(names, n)
		}
	}
	what := "the " + strings.Join(names, " and ") + " attribute"
	if len(names) > 1 {
		what += "s"
	}
	return errorRead{text: bounded(t), source: "attributes", from: what + " (by its name)"}
}

// errorishAttributes are the names of m's attributes that say error and
// the rule does not skip, sorted.
func errorishAttributes(m *sqsjson.Message, rule *BodyErrors) []string {
	var names []string
	for n := range m.MessageAttributes {
		if errorish(n) && (rule == nil || !slices.Contains(rule.SkipAttributes, n)) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// fallbackFields reads the first error-ish top-level payload field (in key
// order) that InBody does not already read: a string, or an object read
// as an error document.
func fallbackFields(env *envelope.Envelope, rule *BodyErrors) errorRead {
	if rule == nil || !env.PayloadJSON || env.Pointer != nil || len(env.Payload) == 0 || env.Payload[0] != '{' {
		return errorRead{}
	}
	name := errorishField(env.Payload, rule)
	if name == "" {
		return errorRead{}
	}
	l := docLookup(env.Payload)
	t := l.text(name)
	if t == "" {
		t = string(l[name]) // an object: Headline reads it as an error document
	}
	if !texty(t) {
		return errorRead{}
	}
	return errorRead{text: bounded(t), source: "body", from: "the payload's " + name + " field (by its name)"}
}

// errorishField is the first top-level member of the JSON object payload
// whose name says error, that InBody does not read and the rule does not
// skip, and whose value is a non-empty string or an object; "" if none.
func errorishField(payload []byte, rule *BodyErrors) string {
	var name string
	eachMember(payload, func(k, v []byte) {
		if name != "" || len(k) < 5 || !bytes.ContainsAny(k, "rR") || !errorish(string(k)) || slices.Contains(signature.BodyErrorFields, string(k)) || rule.skips(string(k)) {
			return
		}
		if len(v) > 2 && (v[0] == '"' || v[0] == '{') {
			name = string(k)
		}
	})
	return name
}
