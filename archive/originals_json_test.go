package archive

import (
	"bytes"
	"encoding/json"
	"maps"
	"testing"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// encodingJSONRecord is the originals record as encoding/json wrote it
// before appendRecord: the reference appendRecord must match byte for byte.
func encodingJSONRecord(t testing.TB, m sqsjson.Message, dlqARN, run string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	m.ReceiptHandle = ""
	m.Attributes = maps.Clone(m.Attributes)
	if m.Attributes == nil {
		m.Attributes = map[string]string{}
	}
	delete(m.Attributes, sqsjson.AttrExportedFrom)
	m.Attributes[sqsjson.AttrOriginalOf] = dlqARN
	m.Attributes[sqsjson.AttrTransformRun] = run
	if err := enc.Encode(&m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func strp(s string) *string { return &s }

// hostileMessages are messages whose every string a producer controls:
// quotes, backslashes, control bytes, HTML, invalid UTF-8, U+2028/2029,
// astral runes, and attributes that collide with the record's own.
func hostileMessages() []sqsjson.Message {
	return []sqsjson.Message{
		{MessageId: "a", Body: `{"order_id":"o-1","version":2}`},
		{MessageId: "b", ReceiptHandle: "rh", MD5OfBody: "0cc1", Body: "text <&> \"q\" \\ \x00\x01\b\f\n\r\t\x1f\x7f é 😀 \u2028\u2029 \xff\xfe bad", MD5OfMessageAttributes: "md5",
			Attributes: map[string]string{"MessageGroupId": "g\n", sqsjson.AttrExportedFrom: "arn:x", sqsjson.AttrOriginalOf: "spoofed", sqsjson.AttrTransformRun: "spoofed", "": "empty name", "zz\x00": "\xc3"},
			MessageAttributes: map[string]sqsjson.MessageAttributeValue{
				"schema": {DataType: "String", StringValue: strp("2")},
				"empty":  {DataType: "String", StringValue: strp("")},
				"bin":    {DataType: "Binary", BinaryValue: []byte{0, 1, 2, 0xff}},
				"nobin":  {DataType: "Binary", BinaryValue: []byte{}},
				"<h>\"":  {DataType: "Number.int", StringValue: strp("1\u2028")},
			}},
		{MessageId: "", Body: ""},
		{MessageId: "c", Body: "x", MessageAttributes: map[string]sqsjson.MessageAttributeValue{}},
	}
}

// TestAppendRecordIsEncodingJSON: the originals record appendRecord writes
// is byte for byte what encoding/json wrote (so every reader of an older
// file reads a new one alike), for hostile strings too, and it leaves the
// message as it was.
func TestAppendRecordIsEncodingJSON(t *testing.T) {
	t.Parallel()
	var b []byte
	var names []string
	for _, m := range hostileMessages() {
		before := maps.Clone(m.Attributes)
		want := encodingJSONRecord(t, m, dlqARN, "run-\"1\"")
		b, names = appendRecord(b[:0], &m, dlqARN, "run-\"1\"", names)
		if !bytes.Equal(b, want) {
			t.Fatalf("message %q:\n got %s\nwant %s", m.MessageId, b, want)
		}
		if !maps.Equal(m.Attributes, before) {
			t.Fatalf("message %q: its attributes changed to %v", m.MessageId, m.Attributes)
		}
	}
}

// BenchmarkAppendRecord is what encoding one original costs a message
// (reflection: the encoding/json sub-benchmark, the former way).
func BenchmarkAppendRecord(b *testing.B) {
	m := sqsjson.Message{MessageId: "5f1d6c0e-3b9a-4b8e-9a53-1f0c2d7e8a41", ReceiptHandle: "rh", MD5OfBody: "8c0d1a4b5e6f7a8b9c0d1e2f3a4b5c6d",
		Body:              `{"order_id":"o-00012345","version":2,"total":12345.5}`,
		Attributes:        map[string]string{"SentTimestamp": "1765100000000", "ApproximateReceiveCount": "4", "ApproximateFirstReceiveTimestamp": "1765100000100", "SenderId": "AIDAEXAMPLE"},
		MessageAttributes: map[string]sqsjson.MessageAttributeValue{"ErrorCode": {DataType: "String", StringValue: strp("E")}, "Tenant": {DataType: "String", StringValue: strp("acme")}}}
	b.Run("appendRecord", func(b *testing.B) {
		var buf []byte
		var names []string
		b.ReportAllocs()
		for b.Loop() {
			buf, names = appendRecord(buf[:0], &m, dlqARN, "run-1", names)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			encodingJSONRecord(b, m, dlqARN, "run-1")
		}
	})
}
