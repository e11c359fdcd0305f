// Package sqsjson holds SQS messages in the exact JSON shape that the SQS JSON
// API returns in ReceiveMessage's Messages[], and reads and writes files of
// them: JSON Lines (one message per line, as `mfdlq inspect --out` writes) or
// the document `aws sqs receive-message` prints ({"Messages": [...]}).
//
// It imports no AWS package so that pure packages such as classify can use it.
package sqsjson

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// Message is one SQS message as the SQS JSON API shapes it. Field names and
// casing are the API's, so a file written here can be read by anything that
// reads `aws sqs receive-message` output, and the other way round.
type Message struct {
	MessageId              string                           `json:"MessageId"`
	ReceiptHandle          string                           `json:"ReceiptHandle,omitempty"`
	MD5OfBody              string                           `json:"MD5OfBody,omitempty"`
	Body                   string                           `json:"Body"`
	Attributes             map[string]string                `json:"Attributes,omitempty"`
	MD5OfMessageAttributes string                           `json:"MD5OfMessageAttributes,omitempty"`
	MessageAttributes      map[string]MessageAttributeValue `json:"MessageAttributes,omitempty"`
}

// MessageAttributeValue is a message attribute as the SQS JSON API shapes it.
// BinaryValue is a []byte, which encoding/json writes as base64 — the same
// encoding the API uses on the wire.
type MessageAttributeValue struct {
	DataType    string  `json:"DataType"`
	StringValue *string `json:"StringValue,omitempty"`
	BinaryValue []byte  `json:"BinaryValue,omitempty"`
}

// System attribute names mfdlq reads.
const (
	AttrSentTimestamp                    = "SentTimestamp"
	AttrApproximateReceiveCount          = "ApproximateReceiveCount"
	AttrApproximateFirstReceiveTimestamp = "ApproximateFirstReceiveTimestamp"
	AttrMessageGroupId                   = "MessageGroupId"
	// AttrExportedFrom is not SQS's: an export writes it into each
	// record's Attributes, the ARN of the queue the record was read from,
	// so that a replay into that very queue is refused. A replay sends the
	// body and message attributes, never Attributes.
	AttrExportedFrom = "mfdlq.ExportedFrom"
	// AttrOriginalOf is not SQS's either: redrive --transform writes it
	// into each record of the originals file (archive.Originals), the ARN
	// of the DLQ the original was taken from. Such a record carries no
	// AttrExportedFrom: replaying it into that DLQ is the undo, not a loop.
	AttrOriginalOf = "mfdlq.OriginalOf"
	// AttrTransformRun names the redrive run that sent a record's
	// repaired copy.
	AttrTransformRun = "mfdlq.TransformRun"
)

// SentTime returns the SentTimestamp attribute (epoch milliseconds) as a time.
// ok is false when the attribute is missing or not a number.
func (m *Message) SentTime() (t time.Time, ok bool) {
	return m.epochMillis(AttrSentTimestamp)
}

// FirstReceiveTime returns ApproximateFirstReceiveTimestamp as a time.
func (m *Message) FirstReceiveTime() (t time.Time, ok bool) {
	return m.epochMillis(AttrApproximateFirstReceiveTimestamp)
}

// ReceiveCount returns ApproximateReceiveCount; ok is false when it is absent.
func (m *Message) ReceiveCount() (n int, ok bool) {
	v, found := m.Attributes[AttrApproximateReceiveCount]
	if !found {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

func (m *Message) epochMillis(name string) (time.Time, bool) {
	v, found := m.Attributes[name]
	if !found {
		return time.Time{}, false
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.UnixMilli(ms).UTC(), true
}

// StringAttribute returns a String or Number message attribute's value.
func (m *Message) StringAttribute(name string) (string, bool) {
	a, ok := m.MessageAttributes[name]
	if !ok || a.StringValue == nil {
		return "", false
	}
	return *a.StringValue, true
}

// BodySHA256 is the hex SHA-256 of a body: the redrive journal records it
// for every message sent, and verify recognises a message that came back
// after a native move (which gives it a new MessageId) by it.
func BodySHA256(body string) string {
	h := sha256.Sum256([]byte(body))
	return hex.EncodeToString(h[:])
}
