package incidents3

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/awserr"
)

// Bounds of an incident in S3: the objects are written by other people's
// runs and read back into a directory and a report, so neither their
// number nor their size is taken on trust.
const (
	// MaxObjectBytes is the largest file pulled or pushed: samples of a
	// hundred 1 MiB messages fit; a larger object is skipped and said.
	MaxObjectBytes = 128 << 20
	// MaxObjects is the most files one incident holds in S3.
	MaxObjects = 200
)

// writeMeta is the user metadata key of a write's token: the SDK retries
// a PUT whose answer was lost, and when the first attempt had landed the
// retry's condition fails against this run's own write. The token tells
// that apart from another writer's (the S3 lease does the same).
const writeMeta = "mfdlq-write"

// ErrNotFound is an object S3 does not hold (or, without s3:ListBucket,
// one it will not say it holds: 403).
var ErrNotFound = errors.New("no such object")

// object is one read of an object: its bytes and its ETag.
type object struct {
	data  []byte
	etag  string
	token string
}

// get reads key whole, at most max bytes; ErrNotFound when absent.
func get(ctx context.Context, c API, bucket, key string, max int64) (object, error) {
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	switch {
	case err == nil:
	case awserr.Code(err) == "NoSuchKey" || awserr.NotFound(err):
		return object{}, ErrNotFound
	default:
		return object{}, fmt.Errorf("read s3://%s/%s: %w", bucket, key, err)
	}
	defer out.Body.Close()
	if n := aws.ToInt64(out.ContentLength); n > max {
		return object{}, &TooLargeError{Key: key, Size: n}
	}
	b, err := io.ReadAll(io.LimitReader(out.Body, max+1))
	if err != nil {
		return object{}, fmt.Errorf("read s3://%s/%s: %w", bucket, key, err)
	}
	if int64(len(b)) > max {
		return object{}, &TooLargeError{Key: key, Size: int64(len(b))}
	}
	return object{data: b, etag: aws.ToString(out.ETag), token: out.Metadata[writeMeta]}, nil
}

// TooLargeError is an object larger than MaxObjectBytes: left in S3.
type TooLargeError struct {
	Key  string
	Size int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %d bytes, more than the %d mfdlq reads of one incident file: left as it is", e.Key, e.Size, MaxObjectBytes)
}

// put writes data to key only if absent (match "") or only if its ETag
// is still match, and returns the new ETag. A lost condition is
// errConditionLost, unless the object now is this very write (a retried
// PUT whose first answer was lost).
func put(ctx context.Context, c API, bucket, key string, data []byte, match, contentType string) (string, error) {
	token := newToken()
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data),
		ContentType: aws.String(contentType), Metadata: map[string]string{writeMeta: token}}
	if match == "" {
		in.IfNoneMatch = aws.String("*")
	} else {
		in.IfMatch = aws.String(match)
	}
	out, err := c.PutObject(ctx, in)
	if err == nil {
		return aws.ToString(out.ETag), nil
	}
	if !awserr.ConditionLost(err) {
		return "", fmt.Errorf("write s3://%s/%s: %w", bucket, key, err)
	}
	if cur, gerr := get(ctx, c, bucket, key, MaxObjectBytes); gerr == nil && cur.token == token {
		return cur.etag, nil
	}
	return "", errConditionLost
}

// errConditionLost is a conditional write another writer's newer write
// beat.
var errConditionLost = errors.New("changed in S3 by another writer")

// newToken is 16 random bytes, hex: unique to one write.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
