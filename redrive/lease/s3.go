package lease

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// S3 is the S3 calls of a conditional lease, with the SDK's signatures.
type S3 interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, optFns ...func(*s3.Options)) (*s3.DeleteObjectOutput, error)
}

var _ S3 = (*s3.Client)(nil)

// Location is where the operator keeps S3 leases: --lease s3://BUCKET/PREFIX.
type Location struct{ Bucket, Prefix string }

// bucketName is S3's rule for a general purpose bucket's name.
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// ParseLocation reads --lease: s3://BUCKET or s3://BUCKET/PREFIX. Any other
// form is an error naming the expected one, before any AWS call.
func ParseLocation(s string) (Location, error) {
	rest, ok := strings.CutPrefix(s, "s3://")
	if !ok {
		return Location{}, fmt.Errorf("%q: use s3://BUCKET/PREFIX (the queue tag is the default lease)", s)
	}
	b, p, _ := strings.Cut(rest, "/")
	if !bucketName.MatchString(b) {
		return Location{}, fmt.Errorf("%q: %q is not an S3 bucket name", s, b)
	}
	return Location{Bucket: b, Prefix: strings.Trim(p, "/")}, nil
}

// Key is the object of the DLQ named by its account, region and name:
// PREFIX/ACCOUNT/REGION/NAME.lease, so one prefix serves every DLQ.
func (l Location) Key(account, region, name string) string {
	k := url.PathEscape(orDash(account)) + "/" + url.PathEscape(orDash(region)) + "/" + url.PathEscape(name) + ".lease"
	if l.Prefix == "" {
		return k
	}
	return l.Prefix + "/" + k
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// S3Lease is a lease held as an S3 object, written with S3's conditional
// writes: created only if absent (If-None-Match: *), renewed, taken over
// and deleted only if unchanged since this run wrote it (If-Match: its
// ETag). S3 is strongly consistent for reads after writes, and a
// conditional write that loses gets 412 Precondition Failed (or 409
// Conflict when two land at once): of two runs, exactly one holds it.
type S3Lease struct {
	c      S3
	bucket string
	key    string
	now    func() time.Time

	mu   sync.Mutex
	me   Holder
	etag string
	renewals
}

var _ Held = (*S3Lease)(nil)

// CurrentS3 reads the lease object; ok is false when there is none.
func CurrentS3(ctx context.Context, c S3, bucket, key string) (h Holder, etag string, ok bool, err error) {
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		if apiCode(err) == "NoSuchKey" {
			return Holder{}, "", false, nil
		}
		return Holder{}, "", false, fmt.Errorf("read the lease s3://%s/%s: %w", bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, 1024))
	if err != nil {
		return Holder{}, "", false, fmt.Errorf("read the lease s3://%s/%s: %w", bucket, key, err)
	}
	h, ok = ParseHolder(string(b))
	return h, aws.ToString(out.ETag), ok, nil
}

// AcquireS3 takes the lease object for me: it creates it if absent; when
// another live run holds it, it refuses (a *HeldError) unless takeOver;
// a dead or expired holder's object is replaced only if unchanged since
// read. A conditional write that loses is a *HeldError with Race set.
func AcquireS3(ctx context.Context, c S3, bucket, key string, me Holder, takeOver bool, now func() time.Time) (*S3Lease, error) {
	l := &S3Lease{c: c, bucket: bucket, key: key, me: me, now: now}
	err := l.put(ctx, "")
	if !lostRace(err) {
		if err != nil {
			return nil, err
		}
		return l, nil
	}
	cur, etag, ok, err := CurrentS3(ctx, c, bucket, key)
	if err != nil {
		return nil, err
	}
	if ok && !cur.same(me) && Live(cur, now()) && !takeOver {
		return nil, &HeldError{Holder: cur}
	}
	// No ETag: deleted since; put creates it again, still only if absent.
	if err := l.put(ctx, etag); err != nil {
		if lostRace(err) {
			back, _, _, _ := CurrentS3(ctx, c, bucket, key)
			return nil, &HeldError{Holder: back, Race: true}
		}
		return nil, err
	}
	return l, nil
}

// put writes the holder: only if absent when match is "", else only if
// the object's ETag is still match. The new ETag is kept.
func (l *S3Lease) put(ctx context.Context, match string) error {
	l.mu.Lock()
	in := &s3.PutObjectInput{Bucket: aws.String(l.bucket), Key: aws.String(l.key), Body: strings.NewReader(l.me.String()), ContentType: aws.String("text/plain")}
	l.mu.Unlock()
	if match == "" {
		in.IfNoneMatch = aws.String("*")
	} else {
		in.IfMatch = aws.String(match)
	}
	out, err := l.c.PutObject(ctx, in)
	if err != nil {
		return fmt.Errorf("write the lease s3://%s/%s: %w", l.bucket, l.key, err)
	}
	l.mu.Lock()
	l.etag = aws.ToString(out.ETag)
	l.mu.Unlock()
	return nil
}

// SetWaiting is Lease.SetWaiting for the S3 lease.
func (l *S3Lease) SetWaiting(w string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.me.Waiting = w
}

// Keep renews the lease every TTL/4 until Release, each renewal only if
// the object is still the one this run wrote: when another run took it
// over, lost is called with that run and renewing stops. warn gets
// renewals that failed otherwise.
func (l *S3Lease) Keep(lost func(Holder), warn func(error)) {
	l.start(func(ctx context.Context) bool {
		l.mu.Lock()
		l.me.Expires = l.now().Add(TTL).UTC().Truncate(time.Second)
		etag := l.etag
		l.mu.Unlock()
		err := l.put(ctx, etag)
		if lostRace(err) {
			cur, _, _, _ := CurrentS3(ctx, l.c, l.bucket, l.key)
			lost(cur)
			return false
		}
		if err != nil && warn != nil {
			warn(err)
		}
		return true
	})
}

// Release stops the renewals and deletes the object only if it is still
// the one this run wrote (If-Match: its ETag): a run that was taken over
// leaves the new holder's lease alone.
func (l *S3Lease) Release(ctx context.Context) error {
	l.end()
	l.mu.Lock()
	etag := l.etag
	l.mu.Unlock()
	_, err := l.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(l.bucket), Key: aws.String(l.key), IfMatch: aws.String(etag)})
	switch {
	case err == nil, lostRace(err), apiCode(err) == "NoSuchKey":
		return nil
	}
	return fmt.Errorf("delete the lease s3://%s/%s: %w", l.bucket, l.key, err)
}

// lostRace tells whether a conditional write failed its condition: 412
// Precondition Failed, or 409 ConditionalRequestConflict when another
// write to the key landed at the same moment.
func lostRace(err error) bool {
	switch apiCode(err) {
	case "PreconditionFailed", "ConditionalRequestConflict":
		return true
	}
	return false
}

func apiCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}
