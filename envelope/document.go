package envelope

import (
	"bytes"
	"encoding/json"
	"strings"
)

// docResult is what readDoc found in one JSON document.
type docResult struct {
	kind, wraps             Kind
	valid                   bool // the document is valid JSON
	payload                 []byte
	payloadJSON             bool
	err, requestID          string
	source, detailType      string
	eventName, eventVersion string
	eventType, dataSchema   string // a CloudEvent's
	docs                    [2]doc
	batch                   *Batch // a stream on-failure record's range
	detached                bool   // the payload is not in the message
	headers                 []byte // a framework envelope's headers object
	snsAttrs                []byte // an SNS notification's MessageAttributes object
}

// docFields are the top-level values readDoc looks at, raw.
type docFields struct {
	// SNS notification
	typ, messageID, topicArn, message, timestamp, attributes []byte
	signed                                                   bool // SignatureVersion or UnsubscribeURL
	// EventBridge event
	version, id, detailType, source, account, time, region, resources, detail []byte
	// Lambda destination record (version shared with EventBridge)
	recTimestamp, requestContext, requestPayload, responseContext, responsePayload []byte
	// S3 event notification
	records, service, event, bucket []byte
	// stream on-failure record (S3 destinations add payload)
	kinesisBatch, ddbBatch, payload []byte
	// IoT rule error action
	ruleName, topic, failures, base64Payload, payloadsMeta []byte
	// MassTransit envelope; NServiceBus TransportMessage
	messageType, mtMessage, mtHeaders, nsbHeaders, nsbBody []byte
}

// readDoc names the kind of the document b and reads its payload. Only a
// valid JSON object can be a document; anything else is raw. nested allows
// one more level: a destination record's requestPayload is read too.
func readDoc(b []byte, nested bool) docResult {
	r := docResult{kind: KindRaw}
	if len(b) == 0 || !json.Valid(b) {
		return r
	}
	r.valid = true
	if b[0] != '{' {
		return r
	}
	if ce, ok := readCloudEvent(b); ok {
		return ce
	}
	var f docFields
	eachMember(b, func(k, v []byte) bool {
		f.set(string(k), v)
		return true
	})
	switch {
	case f.isSNS():
		r.sns(b, &f)
	case f.isEvent():
		r.kind, r.payload, r.payloadJSON = KindEventBridge, f.detail, true
		r.source, r.detailType = text(f.source), text(f.detailType)
		r.docs[0] = doc{KindEventBridge, b}
	case f.isDestination():
		r.destination(b, &f, nested)
	case f.isStreamFailure():
		r.streamFailure(b, &f)
	case f.isIoTError():
		r.iotError(b, &f)
	case f.isMassTransit():
		r.kind, r.payload, r.payloadJSON, r.headers = KindMassTransit, f.mtMessage, true, f.mtHeaders
		r.docs[0] = doc{KindMassTransit, b}
	case f.isNServiceBus():
		r.nservicebus(b, &f)
	case f.isS3():
		r.kind, r.payload, r.payloadJSON = KindS3, b, true
		r.s3(&f)
		r.docs[0] = doc{KindS3, b}
	case f.isLambdaSNSEvent():
		// A Lambda function subscribed to a topic receives the notification
		// inside {"Records":[{"EventSource":"aws:sns","Sns":{…}}]}: what a
		// lambda-async DLQ or a destination record then holds.
		var g docFields
		sns := member(firstElement(f.records), "Sns")
		eachMember(sns, func(k, v []byte) bool {
			g.set(string(k), v)
			return true
		})
		if g.isSNS() || g.isLambdaSNS() {
			r.sns(sns, &g)
		}
	}
	return r
}

// set keeps the top-level member k's raw value v if readDoc looks at it.
// Each kind of document has its own names (they are case-sensitive:
// "Message" is SNS's, "message" MassTransit's).
func (f *docFields) set(k string, v []byte) {
	_ = f.setSNS(k, v) || f.setEvent(k, v) || f.setDestination(k, v) || f.setS3(k, v) ||
		f.setStreamFailure(k, v) || f.setIoTError(k, v) || f.setFramework(k, v)
}

// setSNS keeps an SNS notification's members; false: k is none of them.
func (f *docFields) setSNS(k string, v []byte) bool {
	switch k {
	case "Type":
		f.typ = v
	case "MessageId":
		f.messageID = v
	case "TopicArn":
		f.topicArn = v
	case "Message":
		f.message = v
	case "Timestamp":
		f.timestamp = v
	case "MessageAttributes":
		f.attributes = v
	case "SignatureVersion", "UnsubscribeURL", "UnsubscribeUrl":
		f.signed = isString(v)
	default:
		return false
	}
	return true
}

// setEvent keeps an EventBridge event's (version is a destination record's too) members; false: k is none of them.
func (f *docFields) setEvent(k string, v []byte) bool {
	switch k {
	case "version":
		f.version = v
	case "id":
		f.id = v
	case "detail-type":
		f.detailType = v
	case "source":
		f.source = v
	case "account":
		f.account = v
	case "time":
		f.time = v
	case "region":
		f.region = v
	case "resources":
		f.resources = v
	case "detail":
		f.detail = v
	default:
		return false
	}
	return true
}

// setDestination keeps a Lambda destination record's members; false: k is none of them.
func (f *docFields) setDestination(k string, v []byte) bool {
	switch k {
	case "timestamp":
		f.recTimestamp = v
	case "requestContext":
		f.requestContext = v
	case "requestPayload":
		f.requestPayload = v
	case "responseContext":
		f.responseContext = v
	case "responsePayload":
		f.responsePayload = v
	default:
		return false
	}
	return true
}

// setS3 keeps an S3 event notification's members; false: k is none of them.
func (f *docFields) setS3(k string, v []byte) bool {
	switch k {
	case "Records":
		f.records = v
	case "Service":
		f.service = v
	case "Event":
		f.event = v
	case "Bucket":
		f.bucket = v
	default:
		return false
	}
	return true
}

// setStreamFailure keeps a stream on-failure record's members; false: k is none of them.
func (f *docFields) setStreamFailure(k string, v []byte) bool {
	switch k {
	case "KinesisBatchInfo":
		f.kinesisBatch = v
	case "DDBStreamBatchInfo":
		f.ddbBatch = v
	case "payload":
		f.payload = v
	default:
		return false
	}
	return true
}

// setIoTError keeps an IoT rule error action's members; false: k is none of them.
func (f *docFields) setIoTError(k string, v []byte) bool {
	switch k {
	case "ruleName":
		f.ruleName = v
	case "topic":
		f.topic = v
	case "failures":
		f.failures = v
	case "base64OriginalPayload":
		f.base64Payload = v
	case "payloadsWithMetadata":
		f.payloadsMeta = v
	default:
		return false
	}
	return true
}

// setFramework keeps a MassTransit envelope's or an NServiceBus TransportMessage's members; false: k is none of them.
func (f *docFields) setFramework(k string, v []byte) bool {
	switch k {
	case "messageType":
		f.messageType = v
	case "message":
		f.mtMessage = v
	case "headers":
		f.mtHeaders = v
	case "Headers":
		f.nsbHeaders = v
	case "Body":
		f.nsbBody = v
	default:
		return false
	}
	return true
}

// isSNS: Type "Notification", a MessageId, an SNS TopicArn, a Message
// string, a Timestamp, a signature field, and MessageAttributes (when
// present) an object.
func (f *docFields) isSNS() bool {
	return f.isLambdaSNS() && f.signed
}

// isLambdaSNS is isSNS without the signature fields, which a Lambda event's
// Sns object spells differently (SigningCertUrl) and tests often drop.
func (f *docFields) isLambdaSNS() bool {
	return stringIs(f.typ, "Notification") && isNonEmptyString(f.messageID) &&
		isRawARN(f.topicArn, "sns") && isString(f.message) &&
		isNonEmptyString(f.timestamp) && (f.attributes == nil || isObject(f.attributes) || string(f.attributes) == "null")
}

// isEvent: the EventBridge event's top-level fields with their types.
// account is checked only when present: AWS always sends it, but moto
// 5.2.1 delivers events to SQS targets without it, and the other eight
// fields are strict enough.
func (f *docFields) isEvent() bool {
	return isString(f.version) && isNonEmptyString(f.id) && isString(f.detailType) &&
		isNonEmptyString(f.source) && (f.account == nil || isString(f.account)) && isNonEmptyString(f.time) &&
		isString(f.region) && isArray(f.resources) && isObject(f.detail)
}

// isDestination: version and timestamp strings, a requestContext with a
// requestId, a Lambda functionArn and a condition, and a requestPayload.
func (f *docFields) isDestination() bool {
	if !isString(f.version) || !isString(f.recTimestamp) || !isObject(f.requestContext) || f.requestPayload == nil {
		return false
	}
	ctx := f.requestContext
	return isNonEmptyString(member(ctx, "requestId")) && isNonEmptyString(member(ctx, "condition")) &&
		isRawARN(member(ctx, "functionArn"), "lambda")
}

// isS3: Records, every one with eventSource "aws:s3", an eventName and an
// s3 object holding bucket and object; or the s3:TestEvent S3 sends when a
// notification is configured.
func (f *docFields) isS3() bool {
	if stringIs(f.service, "Amazon S3") && stringIs(f.event, "s3:TestEvent") && isString(f.bucket) {
		return true
	}
	if !isArray(f.records) || firstElement(f.records) == nil {
		return false
	}
	ok := true
	eachElement(f.records, func(rec []byte) bool {
		s3 := member(rec, "s3")
		ok = isObject(rec) && stringIs(member(rec, "eventSource"), "aws:s3") && isString(member(rec, "eventName")) &&
			isObject(s3) && isObject(member(s3, "bucket")) && isObject(member(s3, "object"))
		return ok
	})
	return ok
}

// isLambdaSNSEvent: one record with EventSource "aws:sns" and an Sns object.
func (f *docFields) isLambdaSNSEvent() bool {
	rec := firstElement(f.records)
	return isObject(rec) && stringIs(member(rec, "EventSource"), "aws:sns") && isObject(member(rec, "Sns"))
}

func firstElement(arr []byte) []byte {
	if !isArray(arr) {
		return nil
	}
	var first []byte
	eachElement(arr, func(v []byte) bool { first = v; return false })
	return first
}

// sns reads a notification: the payload is Message decoded, JSON when it is.
func (r *docResult) sns(b []byte, f *docFields) {
	r.kind = KindSNS
	msg := f.message[1 : len(f.message)-1]
	if strings.IndexByte(string(msg), '\\') >= 0 {
		msg = unescape(make([]byte, 0, len(msg)), msg)
	}
	r.payload, r.payloadJSON = msg, json.Valid(msg)
	r.docs[0] = doc{KindSNS, b}
	if isObject(f.attributes) {
		r.snsAttrs = f.attributes
	}
	// A CloudEvent published to a topic: its data is the payload.
	if r.payloadJSON && len(msg) > 0 && msg[0] == '{' {
		if ce, ok := readCloudEvent(msg); ok {
			r.wraps, r.payload, r.payloadJSON = KindCloudEvents, ce.payload, ce.payloadJSON
			r.eventType, r.dataSchema = ce.eventType, ce.dataSchema
			r.docs[1] = ce.docs[0]
		}
	}
}

// destination reads an on-failure destination record: the payload is
// requestPayload (or the payload of the document it is), the error is
// responsePayload's.
func (r *docResult) destination(b []byte, f *docFields, nested bool) {
	r.kind, r.payload, r.payloadJSON = KindLambdaDestination, f.requestPayload, true
	r.requestID = text(member(f.requestContext, "requestId"))
	r.err = responseError(f.responsePayload)
	if r.err == "" {
		// No response: the event expired in the queue (EventAgeExceeded)
		// or the invocation failed without one; the condition says which.
		r.err = conditionError(f.requestContext, f.responseContext)
	}
	r.docs[0] = doc{KindLambdaDestination, b}
	if !nested {
		return
	}
	if in := readDoc(f.requestPayload, false); in.kind != KindRaw && in.kind != KindLambdaDestination {
		r.wraps, r.payload, r.payloadJSON = in.kind, in.payload, in.payloadJSON
		r.source, r.detailType, r.eventName, r.eventVersion = in.source, in.detailType, in.eventName, in.eventVersion
		r.docs[1] = in.docs[0]
	}
}

// s3 reads the schema of an S3 event: its first record's eventName and
// eventVersion.
func (r *docResult) s3(f *docFields) {
	if f.records == nil {
		r.eventName = text(f.event)
		return
	}
	rec := firstElement(f.records)
	r.eventName, r.eventVersion = text(member(rec, "eventName")), text(member(rec, "eventVersion"))
}

// isRawARN is isARN on a raw JSON string, without decoding it.
func isRawARN(v []byte, service string) bool {
	if !isString(v) {
		return false
	}
	rest, ok := bytes.CutPrefix(v[1:len(v)-1], []byte("arn:"))
	partition, rest, ok2 := bytes.Cut(rest, []byte(":"))
	svc, _, ok3 := bytes.Cut(rest, []byte(":"))
	return ok && ok2 && ok3 && len(partition) > 0 && string(svc) == service
}
