// Package s3api reads the S3 objects that SQS Extended Client pointers
// name, for inspect and classify --fetch-payloads: s3:GetObject only,
// never a write or a delete, each read capped in size and redacted.
package s3api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/redact"
)

// Getter is the one S3 call a payload read makes, with the SDK's signature
// so that *s3.Client satisfies it.
type Getter interface {
	GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
}

var _ Getter = (*s3.Client)(nil)

// Bounds of --fetch-payloads.
const (
	// MaxPayloadBytes is the most read of one object: an offloaded payload
	// may be up to 2 GB, and a profile needs its shape, not all of it. A
	// larger object is reported too large and not read; only one object is
	// held in memory at a time.
	MaxPayloadBytes = 8 << 20
	// MaxFetches is the largest --fetch-payloads N.
	MaxFetches = 1000
)

// Fetcher reads offloaded payloads one at a time, at most Limit of them.
// After an access denied it stops calling S3: every other read would be
// denied too. It is not safe for concurrent use.
type Fetcher struct {
	ctx      context.Context
	c        Getter
	limit    int
	maxBytes int64
	calls    int
	denied   string
	// Counts is how many reads ended in each status.
	Counts map[envelope.FetchStatus]int
	// Redacted counts what redaction replaced in the objects read.
	Redacted redact.Counts
}

// NewFetcher returns a Fetcher of up to limit objects through c; maxBytes
// 0 means MaxPayloadBytes.
func NewFetcher(ctx context.Context, c Getter, limit int, maxBytes int64) *Fetcher {
	if maxBytes <= 0 {
		maxBytes = MaxPayloadBytes
	}
	return &Fetcher{ctx: ctx, c: c, limit: limit, maxBytes: maxBytes, Counts: map[envelope.FetchStatus]int{}, Redacted: redact.Counts{}}
}

// Denied is the access-denied error that stopped the reads ("" if none).
func (f *Fetcher) Denied() string { return f.denied }

// Fetch reads p's object: envelope.Fetched says what came of it.
func (f *Fetcher) Fetch(p envelope.Pointer) envelope.Fetched {
	out := f.fetch(p)
	f.Counts[out.Status]++
	return out
}

func (f *Fetcher) fetch(p envelope.Pointer) envelope.Fetched {
	switch {
	case f.denied != "":
		return envelope.Fetched{Status: envelope.FetchDenied, Size: -1, Err: f.denied}
	case f.calls >= f.limit:
		return envelope.Fetched{Status: envelope.FetchSkipped, Size: -1}
	case p.Size > f.maxBytes:
		// The pointer's attribute already says it is too large: no call.
		return envelope.Fetched{Status: envelope.FetchTooLarge, Size: p.Size}
	}
	f.calls++
	// A Range read never transfers more than the cap, whatever the object.
	out, err := f.c.GetObject(f.ctx, &s3.GetObjectInput{Bucket: aws.String(p.Bucket), Key: aws.String(p.Key),
		Range: aws.String(fmt.Sprintf("bytes=0-%d", f.maxBytes))})
	if err != nil {
		return f.failed(p, err)
	}
	defer out.Body.Close()
	size := totalSize(aws.ToString(out.ContentRange), aws.ToInt64(out.ContentLength))
	if size > f.maxBytes {
		return envelope.Fetched{Status: envelope.FetchTooLarge, Size: size}
	}
	body, err := io.ReadAll(io.LimitReader(out.Body, f.maxBytes+1))
	switch {
	case err != nil:
		return envelope.Fetched{Status: envelope.FetchFailed, Size: size, Err: err.Error()}
	case int64(len(body)) > f.maxBytes:
		return envelope.Fetched{Status: envelope.FetchTooLarge, Size: size}
	}
	r := redact.Redactor{Counts: f.Redacted}
	return envelope.Fetched{Status: envelope.FetchRead, Body: []byte(r.String(string(body))), Size: int64(len(body))}
}

// failed maps a GetObject error to a status.
func (f *Fetcher) failed(p envelope.Pointer, err error) envelope.Fetched {
	switch status(err) {
	case http.StatusNotFound:
		return envelope.Fetched{Status: envelope.FetchMissing, Size: -1}
	case http.StatusRequestedRangeNotSatisfiable:
		// A range on an empty object: S3 says 416. The object is empty.
		return envelope.Fetched{Status: envelope.FetchRead, Body: []byte{}, Size: 0}
	case http.StatusForbidden:
		f.denied = fmt.Sprintf("s3:GetObject on s3://%s denied: let this role read the bucket (docs/iam.md)", p.Bucket)
		return envelope.Fetched{Status: envelope.FetchDenied, Size: -1, Err: f.denied}
	}
	return envelope.Fetched{Status: envelope.FetchFailed, Size: -1, Err: err.Error()}
}

// totalSize reads the object's size from a Content-Range "bytes 0-9/1234";
// without one, the length returned is the whole object.
func totalSize(contentRange string, length int64) int64 {
	if _, total, ok := strings.Cut(contentRange, "/"); ok {
		if n, err := strconv.ParseInt(total, 10, 64); err == nil {
			return n
		}
	}
	return length
}

func status(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}
