package envelope

import (
	"bytes"
	"strconv"
	"strings"
)

// The SQS Extended Client Library (Java, Python, and the SNS one) puts a
// payload over the size limit into S3 and sends a pointer in its place:
//
//	["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"b","s3Key":"k"}]
//
// (older Java versions name the class com.amazon.sqs.javamessaging.
// MessageS3Pointer) with the payload's size in the ExtendedPayloadSize
// message attribute (SQSLargePayloadSize before version 1.1). The
// consumer's library fetches the object; mfdlq reads only the pointer,
// unless --fetch-payloads asks it to read the object too.

// Pointer names an offloaded payload's S3 object.
type Pointer struct {
	Bucket, Key string
	// Size is the payload's size from the message attribute; -1 unknown.
	Size int64
}

// sizeAttrs carry the offloaded payload's size, newest name first.
var sizeAttrs = []string{"ExtendedPayloadSize", "SQSLargePayloadSize"}

// readPointer tells an Extended Client pointer in the valid JSON array b:
// a class name ending in "S3Pointer" and an object holding s3BucketName and
// s3Key strings. It returns the object, the payload classify reads.
func readPointer(b []byte) (Pointer, []byte, bool) {
	if !isArray(b) || !bytes.Contains(b, []byte("S3Pointer")) {
		return Pointer{}, nil, false
	}
	var class, obj []byte
	n := 0
	eachElement(b, func(v []byte) bool {
		switch n {
		case 0:
			class = v
		case 1:
			obj = v
		}
		n++
		return n <= 2
	})
	if n != 2 || !isString(class) || !strings.HasSuffix(text(class), "S3Pointer") || !isObject(obj) {
		return Pointer{}, nil, false
	}
	bucket, key := member(obj, "s3BucketName"), member(obj, "s3Key")
	if !isNonEmptyString(bucket) || !isNonEmptyString(key) {
		return Pointer{}, nil, false
	}
	return Pointer{Bucket: text(bucket), Key: text(key), Size: -1}, obj, true
}

// offloaded reads a pointer where the payload is one: the body, or the
// payload of an SNS notification, an event or a Lambda DLQ message.
func (e *Envelope) offloaded() {
	if !e.PayloadJSON || len(e.Payload) == 0 || e.Payload[0] != '[' {
		return
	}
	p, obj, ok := readPointer(e.Payload)
	if !ok {
		return
	}
	for _, name := range sizeAttrs {
		if a, ok := e.attrs[name]; ok && a.StringValue != nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(*a.StringValue), 10, 64); err == nil && n >= 0 {
				p.Size = n
				break
			}
		}
	}
	e.Pointer = &p
	e.Payload = obj
	switch {
	case e.Kind == KindRaw:
		e.Kind = KindOffloaded
	case e.Wraps == "":
		e.Wraps = KindOffloaded
	}
}

// FetchStatus is what became of one --fetch-payloads read.
type FetchStatus string

// Outcomes of reading an offloaded payload.
const (
	FetchRead     FetchStatus = "read"      // Body holds the object, redacted
	FetchMissing  FetchStatus = "missing"   // no such object (deleted by the consumer or a lifecycle rule)
	FetchTooLarge FetchStatus = "too-large" // over the size cap: not read
	FetchDenied   FetchStatus = "denied"    // s3:GetObject not allowed
	FetchFailed   FetchStatus = "failed"    // any other error
	FetchSkipped  FetchStatus = "skipped"   // past --fetch-payloads N
)

// Fetched is what --fetch-payloads read of one pointer's object.
type Fetched struct {
	Status FetchStatus
	Body   []byte // the object, redacted; set only when Status is FetchRead
	Size   int64  // the object's size when S3 said it; -1 unknown
	Err    string // why, for FetchFailed and FetchDenied
}
