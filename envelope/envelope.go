package envelope

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// Kind names the wrapper of a message. The strings appear in JSON output
// and in docs/classify.md.
type Kind string

// The kinds Detect names.
const (
	KindRaw               Kind = "raw"                // no wrapper: the body is the payload
	KindSNS               Kind = "sns"                // SNS notification, raw message delivery off
	KindEventBridge       Kind = "eventbridge"        // EventBridge event delivered to an SQS target
	KindLambdaAsync       Kind = "lambda-async"       // a function's DeadLetterConfig queue
	KindLambdaDestination Kind = "lambda-destination" // an on-failure destination record
	KindEventBridgeDLQ    Kind = "eventbridge-dlq"    // an EventBridge rule target's DLQ
	KindS3                Kind = "s3"                 // S3 event notification (or s3:TestEvent)
	KindCloudEvents       Kind = "cloudevents"        // a CloudEvent, structured (JSON) or binary (ce_* attributes)
	KindOffloaded         Kind = "offloaded"          // an SQS Extended Client pointer to a payload in S3
	KindStreamFailure     Kind = "stream-failure"     // a Kinesis or DynamoDB stream event source's on-failure record
	KindIoTError          Kind = "iot-error"          // an IoT rule's error action message
	KindMassTransit       Kind = "masstransit"        // MassTransit's JSON envelope
	KindNServiceBus       Kind = "nservicebus"        // NServiceBus's SQS TransportMessage
)

// maxError bounds the error text an envelope gives: Lambda truncates its
// ErrorMessage attribute to 1 KB; a stack trace adds nothing to a verdict.
const maxError = 4096

// Envelope is what Detect read from one message. Payload aliases the body
// given to Detect (or a buffer of its own for a decoded SNS Message): copy
// it to keep it past the body.
type Envelope struct {
	Kind Kind
	// Wraps is the document a lambda-async, eventbridge-dlq or
	// lambda-destination message carries when that is itself an sns,
	// eventbridge or s3 document (Payload is then that document's payload);
	// "" otherwise.
	Wraps Kind
	// Payload is the inner document's exact bytes: the SNS Message (decoded
	// from its JSON string), the EventBridge detail, the destination
	// record's requestPayload, the S3 event, or the body.
	Payload []byte
	// PayloadJSON is true when Payload is valid JSON.
	PayloadJSON bool
	// Error is the error text the envelope carries ("" when none):
	// responsePayload's "errorType: errorMessage", "ERROR_CODE:
	// ERROR_MESSAGE", or the Lambda DLQ's ErrorMessage attribute.
	Error string
	// RequestID is the Lambda request id (RequestID attribute or
	// requestContext.requestId): what the function's log lines carry.
	RequestID string
	// Source and DetailType name an EventBridge event's schema; EventName
	// and EventVersion an S3 event's (its first record).
	Source, DetailType      string
	EventName, EventVersion string
	// EventType and DataSchema name a CloudEvent's schema (its type and
	// dataschema attributes).
	EventType, DataSchema string
	// Pointer is the S3 object an Extended Client pointer names (Payload
	// is then the pointer object); nil for a payload carried inline.
	Pointer *Pointer
	// Problem says why --payload found no payload ("" when it did).
	Problem string
	// Detached: the message carries no payload at all — a stream
	// on-failure record names a shard and a sequence range (Batch), and
	// the records stay in the stream.
	Detached bool
	Batch    *Batch
	// Headers is a framework envelope's headers object, raw (MassTransit's
	// "headers", NServiceBus's "Headers"): where its fault headers are
	// when they are not message attributes.
	Headers []byte
	// SNSAttributes is an SNS notification's MessageAttributes object, raw
	// ({"Name": {"Type": "String", "Value": "…"}}): the publisher's
	// attributes, an error's among them, when raw delivery is off.
	SNSAttributes []byte

	attrs map[string]sqsjson.MessageAttributeValue
	docs  [2]doc // the documents Origin reads, outermost first
}

// doc is a detected document and its kind.
type doc struct {
	kind Kind
	b    []byte
}

// Detect reads m's envelope with strict detection and no --payload path.
func Detect(m *sqsjson.Message) Envelope {
	var d *Detector
	return d.Detect(m)
}

// Detector detects envelopes, optionally taking the payload at a path
// (--payload) for in-house envelopes. A nil *Detector detects strictly.
type Detector struct {
	path Path
}

// NewDetector returns a Detector; payloadPath is a --payload path such as
// ".data" or ".detail.order" ("" for none).
func NewDetector(payloadPath string) (*Detector, error) {
	p, err := ParsePath(payloadPath)
	if err != nil {
		return nil, err
	}
	return &Detector{path: p}, nil
}

// PayloadPath is the --payload path the Detector applies ("" for none).
func (d *Detector) PayloadPath() string {
	if d == nil {
		return ""
	}
	return d.path.String()
}

// Detect reads m's envelope.
func (d *Detector) Detect(m *sqsjson.Message) Envelope {
	return d.DetectBody([]byte(m.Body), m)
}

// DetectBody reads the envelope of m whose body, as bytes, is body: callers
// that already hold the body's bytes avoid a copy. m may be nil (a body
// without message attributes).
func (d *Detector) DetectBody(body []byte, m *sqsjson.Message) Envelope {
	e := Envelope{Kind: KindRaw}
	if m != nil {
		e.attrs = m.MessageAttributes
	}
	b := bytes.TrimSpace(body)
	switch {
	case e.ruleFailure():
		e.Kind = KindEventBridgeDLQ
		e.wrap(b)
	case e.lambdaAsync():
		e.Kind = KindLambdaAsync
		e.wrap(b)
	case e.binaryCloudEvent():
		e.Kind = KindCloudEvents
		e.Payload, e.PayloadJSON = b, json.Valid(b)
	default:
		r := readDoc(b, true)
		if r.kind == KindRaw {
			e.Payload, e.PayloadJSON = b, r.valid
			break
		}
		e.Kind = r.kind
		e.take(r)
	}
	if d != nil && len(d.path) > 0 {
		e.applyPath(d.path)
	}
	e.offloaded()
	return e
}

// wrap reads the body a lambda-async or eventbridge-dlq message carries: an
// EventBridge event, SNS or S3 document gives its payload; anything else is
// the payload as it is.
func (e *Envelope) wrap(b []byte) {
	r := readDoc(b, false)
	if r.kind == KindRaw {
		e.Payload, e.PayloadJSON = b, r.valid
		return
	}
	e.Wraps = r.kind
	e.take(r)
}

// take copies what readDoc found into e, keeping an error the attributes
// already gave.
func (e *Envelope) take(r docResult) {
	e.Payload, e.PayloadJSON = r.payload, r.payloadJSON
	if e.Wraps == "" && r.wraps != "" {
		e.Wraps = r.wraps
	}
	if e.Error == "" {
		e.Error = r.err
	}
	if e.RequestID == "" {
		e.RequestID = r.requestID
	}
	e.Source, e.DetailType, e.EventName, e.EventVersion = r.source, r.detailType, r.eventName, r.eventVersion
	e.EventType, e.DataSchema = r.eventType, r.dataSchema
	e.docs = r.docs
	e.Batch, e.Detached, e.Headers, e.SNSAttributes = r.batch, r.detached, r.headers, r.snsAttrs
}

// ruleFailure tells an EventBridge target DLQ message by its attributes:
// RULE_ARN (an events rule ARN), TARGET_ARN and ERROR_CODE, all strings.
func (e *Envelope) ruleFailure() bool {
	rule, ok1 := stringAttr(e.attrs, "RULE_ARN")
	target, ok2 := stringAttr(e.attrs, "TARGET_ARN")
	code, ok3 := stringAttr(e.attrs, "ERROR_CODE")
	if !ok1 || !ok2 || !ok3 || !isARN(rule, "events") || !strings.HasPrefix(target, "arn:") || code == "" {
		return false
	}
	e.Error = bound(code)
	if msg, _ := stringAttr(e.attrs, "ERROR_MESSAGE"); msg != "" {
		e.Error = bound(code + ": " + msg)
	}
	return true
}

// lambdaAsync tells a Lambda asynchronous-invocation DLQ message by its
// three documented attributes: RequestID (String), ErrorCode (Number, an
// HTTP status code) and ErrorMessage (String).
func (e *Envelope) lambdaAsync() bool {
	id, ok1 := stringAttr(e.attrs, "RequestID")
	msg, ok2 := stringAttr(e.attrs, "ErrorMessage")
	code, ok3 := e.attrs["ErrorCode"]
	if !ok1 || !ok2 || !ok3 || id == "" || code.StringValue == nil ||
		!strings.HasPrefix(code.DataType, "Number") || !isStatusCode(*code.StringValue) {
		return false
	}
	e.RequestID, e.Error = id, bound(msg)
	return true
}

func stringAttr(attrs map[string]sqsjson.MessageAttributeValue, name string) (string, bool) {
	a, ok := attrs[name]
	if !ok || a.StringValue == nil {
		return "", false
	}
	return *a.StringValue, true
}

// isStatusCode tells a three-digit HTTP status code.
func isStatusCode(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) != 3 || s[0] < '1' || s[0] > '5' {
		return false
	}
	return s[1] >= '0' && s[1] <= '9' && s[2] >= '0' && s[2] <= '9'
}

// isARN tells an ARN of service: "arn:PARTITION:SERVICE:…".
func isARN(s, service string) bool {
	rest, ok := strings.CutPrefix(s, "arn:")
	partition, rest, ok2 := strings.Cut(rest, ":")
	svc, _, ok3 := strings.Cut(rest, ":")
	return ok && ok2 && ok3 && partition != "" && svc == service
}

// bound cuts s to maxError bytes on a rune boundary.
func bound(s string) string {
	if len(s) <= maxError {
		return s
	}
	return strings.ToValidUTF8(s[:maxError], "")
}

// MarshalJSON writes the envelope as inspect's --output json shows it:
// kind, payload (the JSON value itself when it is JSON, else a string),
// error, and where known wraps, request_id, problem and origin.
func (e Envelope) MarshalJSON() ([]byte, error) {
	var payload json.RawMessage
	switch {
	case e.PayloadJSON:
		payload = e.Payload
	case e.Payload != nil:
		s, _ := json.Marshal(string(e.Payload))
		payload = s
	default:
		payload = json.RawMessage("null")
	}
	return json.Marshal(struct {
		Kind      Kind            `json:"kind"`
		Wraps     Kind            `json:"wraps,omitempty"`
		Payload   json.RawMessage `json:"payload"`
		Error     string          `json:"error"`
		RequestID string          `json:"request_id,omitempty"`
		Problem   string          `json:"problem,omitempty"`
		Origin    Origin          `json:"origin,omitzero"`
	}{e.Kind, e.Wraps, payload, e.Error, e.RequestID, e.Problem, e.Origin()})
}
