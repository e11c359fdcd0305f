package classify

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// errorOf is the error text a message carries and where: an AWS
// envelope's own (a destination record's responsePayload or condition, a
// stream or IoT failure record's: "envelope"; a Lambda DLQ's and an
// EventBridge DLQ's attributes: "attributes"), then errorSources — a
// consumer's or a framework's attributes and headers, Sidekiq, Celery,
// Solid Queue and Laravel payload fields —, then the payload fields
// signature.InBody reads (Step Functions' Error/Cause, a wrapper's error
// field: "body"), then any attribute or payload field whose name says
// error.
func errorOf(m *sqsjson.Message, env *envelope.Envelope, body []byte, rule *BodyErrors) errorRead {
	switch {
	case env.Error != "" && (env.Kind == envelope.KindLambdaDestination || env.Kind == envelope.KindStreamFailure || env.Kind == envelope.KindIoTError):
		return errorRead{text: env.Error, source: "envelope", from: envelopeErrorName(env)}
	case env.Error != "":
		return errorRead{text: env.Error, source: "attributes", from: envelopeErrorName(env)}
	}
	am := withAttributes(m, env)
	if r := readErrorSources(am, env, rule); r.text != "" {
		return r
	}
	if t, _ := rule.read(env, body); t != "" {
		return errorRead{text: t, source: "body"}
	}
	if r := fallbackAttributes(am, rule); r.text != "" {
		return r
	}
	return fallbackFields(env, rule)
}

// envelopeErrorName says where an AWS envelope keeps its error, for the
// kinds that carry it where classify did not always look.
func envelopeErrorName(env *envelope.Envelope) string {
	switch env.Kind {
	case envelope.KindStreamFailure:
		return "the stream on-failure record's condition"
	case envelope.KindIoTError:
		return "the IoT rule error action's failures"
	}
	return ""
}

// chained tells a stack trace that names more than one error.
func chained(trace string) bool {
	for _, m := range []string{"Caused by:", " ---> ", "During handling of the above exception", "direct cause of the following exception", "[cause]:"} {
		if strings.Contains(trace, m) {
			return true
		}
	}
	return false
}

func joinTyped(typ, msg string) string {
	switch {
	case typ == "":
		return msg
	case msg == "", strings.HasPrefix(msg, typ):
		return cmpOr(msg, typ)
	}
	return typ + ": " + msg
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// maxSourceError bounds an error text read from a source, as the
// envelope bounds its own.
const maxSourceError = 4096

func bounded(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxSourceError {
		return s
	}
	return strings.ToValidUTF8(s[:maxSourceError], "")
}

// lookup is a JSON object's members, raw.
type lookup map[string]json.RawMessage

func docLookup(b []byte) lookup {
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var l lookup
	if json.Unmarshal(b, &l) != nil {
		return nil
	}
	return l
}

// text is member n as text: a string as it is, a list of strings (Celery's
// exc_message, Sidekiq's error_backtrace) one per line, a number as
// written; "" for anything else.
func (l lookup) text(n string) string {
	v, ok := l[n]
	if !ok || len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return strings.TrimSpace(s)
	case '[':
		var ss []string
		if json.Unmarshal(v, &ss) == nil {
			return strings.TrimSpace(strings.Join(ss, "\n"))
		}
	}
	return ""
}

// nested reads a payload field at the top level, else inside "result" (a
// Celery task's meta) or "error" (a Solid Queue failed execution), skipping
// fields the healthy messages have too.
func (l lookup) nested(rule *BodyErrors) func(string) string {
	inner := []lookup{docLookup(l["result"]), docLookup(l["error"])}
	return func(n string) string {
		if rule.skips(n) {
			return ""
		}
		if t := l.text(n); t != "" {
			return t
		}
		for _, in := range inner {
			if t := in.text(n); t != "" {
				return t
			}
		}
		return ""
	}
}

// payloadSourceHints are bytes a payload holding one of the table's
// payload fields contains: a payload without any is not decoded.
var payloadSourceHints = [][]byte{[]byte(`"error_class"`), []byte(`"exc_type"`), []byte(`"exception_class"`), []byte(`"exception"`)}

func hasPayloadSource(p []byte) bool {
	if len(p) == 0 || p[0] != '{' {
		return false
	}
	for _, h := range payloadSourceHints {
		if bytes.Contains(p, h) {
			return true
		}
	}
	return false
}

// symfonyError reads the last ErrorDetailsStamp (or RedeliveryStamp) from
// Symfony Messenger's headers: a JSON list of stamps, each with
// exceptionClass and exceptionMessage.
func symfonyError(h lookup) string {
	for _, name := range symfonyStamps {
		raw := h.text(name)
		if raw == "" {
			continue
		}
		var stamps []struct {
			Class   string `json:"exceptionClass"`
			Message string `json:"exceptionMessage"`
		}
		if json.Unmarshal([]byte(raw), &stamps) != nil || len(stamps) == 0 {
			continue
		}
		last := stamps[len(stamps)-1]
		if t := joinTyped(last.Class, last.Message); t != "" {
			return bounded(t)
		}
	}
	return ""
}

// skips tells a payload field the healthy messages have too.
func (r *BodyErrors) skips(field string) bool { return r != nil && slices.Contains(r.Skip, field) }

// withAttributes is m, or — when m has no attributes and its SNS
// notification (raw delivery off) has some that may name an error — a
// message holding the notification's String attributes, as the publisher
// set them ({"Name": {"Type": "String", "Value": "…"}}).
func withAttributes(m *sqsjson.Message, env *envelope.Envelope) *sqsjson.Message {
	if len(m.MessageAttributes) > 0 || !mayHoldError(env.SNSAttributes) {
		return m
	}
	var sns map[string]struct{ Type, Value string }
	if json.Unmarshal(env.SNSAttributes, &sns) != nil || len(sns) == 0 {
		return m
	}
	out := &sqsjson.Message{MessageId: m.MessageId, MessageAttributes: map[string]sqsjson.MessageAttributeValue{}}
	for n, a := range sns {
		if a.Type == "String" || strings.HasPrefix(a.Type, "String.") {
			v := a.Value
			out.MessageAttributes[n] = sqsjson.MessageAttributeValue{DataType: "String", StringValue: &v}
		}
	}
	return out
}

// errorHints are bytes an attribute object naming an error holds: most
// notifications' attributes (a tenant, a trace id) hold none and are not
// decoded.
var errorHints = [][]byte{[]byte("rror"), []byte("RROR"), []byte("xception"), []byte("ault"), []byte("ailure"), []byte("eason"), []byte("MT-"), []byte("NServiceBus."), []byte("x-exception"), []byte("kafka_dlt")}

func mayHoldError(raw []byte) bool {
	if len(raw) < 3 {
		return false
	}
	for _, h := range errorHints {
		if bytes.Contains(raw, h) {
			return true
		}
	}
	return false
}
