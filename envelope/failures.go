package envelope

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// AWS writes some failures as documents of their own rather than around
// the message: an event source mapping's on-failure record (Kinesis or
// DynamoDB streams) names a shard and a sequence range and carries no
// record at all, and an IoT rule's error action carries the original
// payload base64-encoded beside the failed actions. Two messaging
// frameworks wrap the payload in an envelope of their own on SQS:
// MassTransit (its JSON envelope, the message under "message") and
// NServiceBus (a TransportMessage, the body base64-encoded under "Body",
// the headers — fault headers included — under "Headers").

// Batch is the stream range an on-failure record names: the records
// themselves stay in the stream (until its retention ends).
type Batch struct {
	Source string `json:"source"` // kinesis, dynamodb
	Stream string `json:"stream_arn"`
	Shard  string `json:"shard_id"`
	Start  string `json:"start_sequence_number"`
	End    string `json:"end_sequence_number"`
	Size   int    `json:"batch_size"`
}

// isStreamFailure: a destination record's version, timestamp and
// requestContext (requestId, a Lambda functionArn, a condition), no
// requestPayload, and a KinesisBatchInfo or DDBStreamBatchInfo object with
// a shardId and a streamArn.
func (f *docFields) isStreamFailure() bool {
	if !isString(f.version) || !isString(f.recTimestamp) || !isObject(f.requestContext) || f.requestPayload != nil {
		return false
	}
	ctx := f.requestContext
	if !isNonEmptyString(member(ctx, "requestId")) || !isNonEmptyString(member(ctx, "condition")) ||
		!isRawARN(member(ctx, "functionArn"), "lambda") {
		return false
	}
	info := f.batchInfo()
	return isObject(info) && isNonEmptyString(member(info, "shardId")) && isString(member(info, "streamArn"))
}

func (f *docFields) batchInfo() []byte {
	if f.kinesisBatch != nil {
		return f.kinesisBatch
	}
	return f.ddbBatch
}

// streamFailure reads an on-failure record of a stream event source: no
// payload (Detached), the error is the condition and the function error.
// A record sent to S3 holds the batch under "payload"; one sent to SQS or
// SNS does not.
func (r *docResult) streamFailure(b []byte, f *docFields) {
	r.kind = KindStreamFailure
	r.requestID = text(member(f.requestContext, "requestId"))
	info := f.batchInfo()
	r.batch = &Batch{Source: "dynamodb", Stream: text(member(info, "streamArn")), Shard: text(member(info, "shardId")),
		Start: text(member(info, "startSequenceNumber")), End: text(member(info, "endSequenceNumber"))}
	if f.kinesisBatch != nil {
		r.batch.Source = "kinesis"
	}
	_ = json.Unmarshal(member(info, "batchSize"), &r.batch.Size)
	r.err = conditionError(f.requestContext, f.responseContext)
	r.docs[0] = doc{KindStreamFailure, b}
	if p := f.payload; p != nil {
		r.payload, r.payloadJSON = p, true
		if isString(p) {
			s := []byte(text(p))
			r.payload, r.payloadJSON = s, json.Valid(s)
		}
		return
	}
	r.detached = true
}

// conditionError is what a destination record without a responsePayload
// says of its failure: the condition (EventAgeExceeded, RetriesExhausted,
// RetryAttemptsExhausted, RecordAgeExceeded …) and, when the function
// itself failed, its functionError ("RetryAttemptsExhausted: function
// error Unhandled").
func conditionError(reqCtx, respCtx []byte) string {
	cond := text(member(reqCtx, "condition"))
	fe := ""
	if isObject(respCtx) {
		fe = text(member(respCtx, "functionError"))
	}
	if fe == "" {
		return bound(cond)
	}
	return bound(cond + ": function error " + fe)
}

// isIoTError: an IoT rule error action's message — ruleName and topic
// strings, a failures array whose first element has failedAction and
// errorMessage, and base64OriginalPayload (or, with batching,
// payloadsWithMetadata).
func (f *docFields) isIoTError() bool {
	if !isNonEmptyString(f.ruleName) || !isString(f.topic) || !isArray(f.failures) {
		return false
	}
	first := firstElement(f.failures)
	return isObject(first) && isString(member(first, "failedAction")) && isString(member(first, "errorMessage")) &&
		(isString(f.base64Payload) || isArray(f.payloadsMeta))
}

// iotError reads an IoT rule error action: the payload is the original
// payload decoded (the first one of a batch), the error each failed
// action's "failedAction: errorMessage", joined.
func (r *docResult) iotError(b []byte, f *docFields) {
	r.kind = KindIoTError
	r.docs[0] = doc{KindIoTError, b}
	enc := f.base64Payload
	if enc == nil {
		enc = member(firstElement(f.payloadsMeta), "base64OriginalPayload")
	}
	if p, err := base64.StdEncoding.DecodeString(text(enc)); err == nil {
		r.payload, r.payloadJSON = p, json.Valid(p)
	} else {
		r.payload, r.payloadJSON = []byte(text(enc)), false
	}
	var parts []string
	eachElement(f.failures, func(v []byte) bool {
		if a, msg := text(member(v, "failedAction")), text(member(v, "errorMessage")); msg != "" {
			parts = append(parts, joinError(a, msg))
		}
		return len(parts) < 4
	})
	r.err = bound(strings.Join(parts, "; "))
}

// isMassTransit: MassTransit's JSON envelope — a messageType array whose
// first URN starts "urn:message:", and a message object.
func (f *docFields) isMassTransit() bool {
	return stringHas(firstElement(f.messageType), "urn:message:") && isObject(f.mtMessage)
}

// isNServiceBus: NServiceBus's SQS TransportMessage — a Headers object
// holding NServiceBus.MessageId or NServiceBus.EnclosedMessageTypes, and a
// Body string (base64).
func (f *docFields) isNServiceBus() bool {
	if !isObject(f.nsbHeaders) || !isString(f.nsbBody) {
		return false
	}
	return member(f.nsbHeaders, "NServiceBus.MessageId") != nil || member(f.nsbHeaders, "NServiceBus.EnclosedMessageTypes") != nil
}

// nservicebus reads a TransportMessage: the payload is Body decoded from
// base64 (as it is when it is not base64: "empty message"), the headers
// are kept for classify's error sources.
func (r *docResult) nservicebus(b []byte, f *docFields) {
	r.kind, r.headers = KindNServiceBus, f.nsbHeaders
	r.docs[0] = doc{KindNServiceBus, b}
	s := text(f.nsbBody)
	if p, err := base64.StdEncoding.DecodeString(s); err == nil {
		r.payload, r.payloadJSON = p, json.Valid(p)
		return
	}
	r.payload, r.payloadJSON = []byte(s), json.Valid([]byte(s))
}

func joinError(typ, msg string) string {
	switch {
	case typ == "":
		return msg
	case msg == "":
		return typ
	}
	return typ + ": " + msg
}

// responseError is a function error document as "errorType: errorMessage"
// (the message alone when there is no type, as for a timeout). A Java
// function's document nests the exception's cause ("cause", as the
// runtime writes it): its chain is kept as "Caused by:" lines, so that the
// root cause names the error.
func responseError(v []byte) string {
	switch {
	case isString(v):
		return bound(text(v))
	case !isObject(v):
		return ""
	}
	out := typed(v)
	for i, c := 0, member(v, "cause"); i < 8 && isObject(c); i, c = i+1, member(c, "cause") {
		if t := typed(c); t != "" {
			out += "\nCaused by: " + t
		}
	}
	return bound(out)
}

func typed(v []byte) string {
	typ, msg := text(member(v, "errorType")), text(member(v, "errorMessage"))
	switch {
	case typ == "":
		return msg
	case msg == "":
		return typ
	}
	return typ + ": " + msg
}
