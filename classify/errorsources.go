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

// errorRead is an error text and where it came from.
type errorRead struct {
	text   string
	source string // logs, envelope, attributes, body
	from   string // the sender or field, for the evidence ("MassTransit (MT-Fault-* headers)")
}

// readErrorSources tries the table, then Symfony's stamps, against the
// message's attributes, the envelope's headers and the payload.
func readErrorSources(m *sqsjson.Message, env *envelope.Envelope, rule *BodyErrors) errorRead {
	attr := func(n string) string {
		if v, ok := m.StringAttribute(n); ok {
			return strings.TrimSpace(v)
		}
		return ""
	}
	var headers, payload lookup
	headerDoc := env.Headers
	if headerDoc == nil && len(m.MessageAttributes) > 0 {
		for _, n := range headersAttrs {
			if v := attr(n); v != "" && v[0] == '{' {
				headerDoc = []byte(v)
				break
			}
		}
	}
	headers = docLookup(headerDoc)
	if rule != nil && env.PayloadJSON && env.Pointer == nil && hasPayloadSource(env.Payload) {
		payload = docLookup(env.Payload)
	}
	for i := range errorSources {
		s := &errorSources[i]
		get := attr
		switch s.where {
		case inAttributes:
			if len(m.MessageAttributes) == 0 {
				continue
			}
		case inHeaders:
			if headers == nil {
				continue
			}
			get = headers.text
		case inPayload:
			if payload == nil {
				continue
			}
			get = payload.nested(rule)
			if s.typ != nil && get(s.typ[0]) == "" {
				continue // the row's type field names it: "message" alone is no error
			}
		}
		if t := s.read(get); t != "" {
			src := "attributes"
			if s.where == inPayload {
				src = "body"
			}
			return errorRead{text: t, source: src, from: s.sender}
		}
	}
	if t := symfonyError(headers); t != "" {
		return errorRead{text: t, source: "attributes", from: "the ErrorDetailsStamp (Symfony Messenger)"}
	}
	return errorRead{}
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
