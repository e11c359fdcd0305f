package classify

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// errorRead is an error text and where it came from.
type errorRead struct {
	text   string
	source string // logs, envelope, attributes, body
	from   string // the sender or field, for the evidence ("MassTransit (MT-Fault-* headers)")
}

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
	return slices.ContainsFunc([]string{"Caused by:", " ---> ", "During handling of the above exception", "direct cause of the following exception", "[cause]:"},
		func(m string) bool { return strings.Contains(trace, m) })
}

func joinTyped(typ, msg string) string {
	switch {
	case typ == "":
		return msg
	case msg == "", strings.HasPrefix(msg, typ):
		return cmp.Or(msg, typ)
	}
	return typ + ": " + msg
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
	return slices.ContainsFunc(errorHints, func(h []byte) bool { return bytes.Contains(raw, h) })
}
