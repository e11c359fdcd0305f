package classify

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Where an error source is read.
const (
	inAttributes = "attributes" // the SQS message attributes
	inHeaders    = "headers"    // a framework's headers object (an envelope field, or an attribute holding JSON)
	inPayload    = "payload"    // top-level fields of the payload
)

// errorSource is one place a sender puts a failure's text: the names of
// the exception's type, its message and its stack trace (the first name
// present wins in each). docs/classify.md lists every row with its source.
type errorSource struct {
	sender  string // where, and who writes it: "the error in SENDER says …" ("": a consumer's own attributes)
	where   string // inAttributes, inHeaders or inPayload
	typ     []string
	message []string
	trace   []string
}

// errorSources is the one table of where senders put a failure, in the
// order they are tried; the first row that gives a text wins. The AWS
// envelopes' own errors (a destination record's responsePayload or
// condition, an EventBridge or Lambda DLQ's attributes, an IoT rule's
// failures) come first, from package envelope; after this table, the
// payload fields signature.InBody reads (Step Functions' Error/Cause,
// error, error_message, failureReason, exception …), then any attribute
// or field whose name says error, exception, fault, failure or reason.
var errorSources = []errorSource{
	{"", inAttributes, // a consumer's own: ErrorCode/ErrorMessage, as classify always read them
		[]string{"ErrorCode", "ErrorType", "errorType", "ExceptionType"},
		[]string{"ErrorMessage", "errorMessage", "Error", "error", "ExceptionMessage"}, nil},
	{"the MT-Fault-* attributes (MassTransit)", inAttributes,
		[]string{"MT-Fault-ExceptionType"}, []string{"MT-Fault-Message"}, []string{"MT-Fault-StackTrace"}},
	{"the NServiceBus.ExceptionInfo.* attributes (NServiceBus)", inAttributes,
		[]string{"NServiceBus.ExceptionInfo.ExceptionType"}, []string{"NServiceBus.ExceptionInfo.Message"}, []string{"NServiceBus.ExceptionInfo.StackTrace"}},
	{"the kafka_dlt-exception-* attributes (Spring Kafka)", inAttributes,
		[]string{"kafka_dlt-exception-cause-fqcn", "kafka_dlt-exception-fqcn"}, []string{"kafka_dlt-exception-message"}, []string{"kafka_dlt-exception-stacktrace"}},
	{"the x-exception-* attributes (Spring Cloud Stream, Spring AMQP)", inAttributes,
		[]string{"x-exception-fqcn"}, []string{"x-exception-message"}, []string{"x-exception-stacktrace"}},
	{"the dlqDeliveryFailureCause attribute (JMS, ActiveMQ)", inAttributes, nil, []string{"dlqDeliveryFailureCause"}, nil},
	{"the dead-letter-* attributes (SmallRye Reactive Messaging)", inAttributes, []string{"dead-letter-cause"}, []string{"dead-letter-reason"}, nil},
	{"the rbs2-error-details attribute (Rebus)", inAttributes, nil, []string{"rbs2-error-details"}, nil},
	{"the envelope's MT-Fault-* headers (MassTransit)", inHeaders,
		[]string{"MT-Fault-ExceptionType"}, []string{"MT-Fault-Message"}, []string{"MT-Fault-StackTrace"}},
	{"the TransportMessage's NServiceBus.ExceptionInfo.* headers (NServiceBus)", inHeaders,
		[]string{"NServiceBus.ExceptionInfo.ExceptionType"}, []string{"NServiceBus.ExceptionInfo.Message"}, []string{"NServiceBus.ExceptionInfo.StackTrace"}},
	{"the payload's error_class and error_message (Sidekiq)", inPayload, []string{"error_class"}, []string{"error_message"}, []string{"error_backtrace"}},
	{"the payload's exc_type and exc_message (Celery)", inPayload, []string{"exc_type"}, []string{"exc_message"}, []string{"traceback"}},
	{"the payload's exception_class and message (Rails Solid Queue)", inPayload, []string{"exception_class"}, []string{"message"}, []string{"backtrace"}},
	{"the payload's exception field (a Laravel failed job)", inPayload, nil, []string{"exception"}, nil},
}

// headersAttrs are attributes that hold a framework's headers as one JSON
// object: Symfony Messenger's (headers that are no valid attribute name,
// its stamps among them) and NServiceBus's unwrapped messages'.
var headersAttrs = []string{"X-Symfony-Messenger", "NServiceBus.AmazonSQS.Headers"}

// symfonyStamps are the Symfony Messenger stamps that carry the handler's
// exception: ErrorDetailsStamp (5.2+: exceptionClass, exceptionMessage)
// and, before it, RedeliveryStamp (exceptionMessage).
var symfonyStamps = []string{
	`X-Message-Stamp-Symfony\Component\Messenger\Stamp\ErrorDetailsStamp`,
	`X-Message-Stamp-Symfony\Component\Messenger\Stamp\RedeliveryStamp`,
}

// readErrorSources tries the table, then Symfony's stamps, against the
// message's attributes, the envelope's headers and the payload.
func readErrorSources(m *sqsjson.Message, env *envelope.Envelope, rule *BodyErrors) errorRead {
	pl := placesOf(m, env, rule)
	for i := range errorSources {
		s := &errorSources[i]
		get, ok := pl.reader(s)
		if !ok {
			continue
		}
		if t := s.read(get); t != "" {
			src := "attributes"
			if s.where == inPayload {
				src = "body"
			}
			return errorRead{text: t, source: src, from: s.sender}
		}
	}
	if t := symfonyError(pl.headers); t != "" {
		return errorRead{text: t, source: "attributes", from: "the ErrorDetailsStamp (Symfony Messenger)"}
	}
	return errorRead{}
}

// errorPlaces are where a message may keep an error source: its
// attributes, a framework's headers (an envelope field, or an attribute
// holding a JSON object: headersAttrs) and its payload's fields (decoded
// only when a payload row may match: hasPayloadSource).
type errorPlaces struct {
	m                *sqsjson.Message
	rule             *BodyErrors
	headers, payload lookup
}

func placesOf(m *sqsjson.Message, env *envelope.Envelope, rule *BodyErrors) errorPlaces {
	pl := errorPlaces{m: m, rule: rule}
	headerDoc := env.Headers
	if headerDoc == nil && len(m.MessageAttributes) > 0 {
		for _, n := range headersAttrs {
			if v := pl.attr(n); v != "" && v[0] == '{' {
				headerDoc = []byte(v)
				break
			}
		}
	}
	pl.headers = docLookup(headerDoc)
	if rule != nil && env.PayloadJSON && env.Pointer == nil && hasPayloadSource(env.Payload) {
		pl.payload = docLookup(env.Payload)
	}
	return pl
}

// attr is the message's String attribute n, trimmed ("" when absent).
func (pl errorPlaces) attr(n string) string {
	if v, ok := pl.m.StringAttribute(n); ok {
		return strings.TrimSpace(v)
	}
	return ""
}

// reader reads the names of row s where s says they are; false: the
// message has no such place, or (a payload row) not the row's type field.
func (pl errorPlaces) reader(s *errorSource) (func(string) string, bool) {
	switch s.where {
	case inHeaders:
		return pl.headers.text, pl.headers != nil
	case inPayload:
		if pl.payload == nil {
			return nil, false
		}
		get := pl.payload.nested(pl.rule)
		// The row's type field names it: "message" alone is no error.
		return get, s.typ == nil || get(s.typ[0]) != ""
	}
	return pl.attr, len(pl.m.MessageAttributes) > 0
}

// read is the source's text: "Type: message", and the stack trace after it
// when the trace chains errors (a root cause, an exception raised while
// handling another), which decides what the error is.
func (s *errorSource) read(get func(string) string) string {
	first := func(names []string) string {
		for _, n := range names {
			if v := get(n); v != "" {
				return v
			}
		}
		return ""
	}
	typ, msg, trace := first(s.typ), first(s.message), first(s.trace)
	if mod := get("exc_module"); s.where == inPayload && mod != "" && mod != "builtins" && typ != "" && !strings.Contains(typ, ".") {
		typ = mod + "." + typ // Celery's exc_type is the bare class name; a traceback names it with its module
	}
	text := joinTyped(typ, msg)
	if text == "" || trace != "" && chained(trace) {
		// A trace that chains errors names them all, the root cause first.
		return bounded(trace)
	}
	return bounded(text)
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
	return slices.ContainsFunc(payloadSourceHints, func(h []byte) bool { return bytes.Contains(p, h) })
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
