package lease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/awserr"
)

// S3 is the S3 calls of a conditional lease, with the SDK's signatures.
type S3 interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, optFns ...func(*s3.Options)) (*s3.DeleteObjectOutput, error)
}

var _ S3 = (*s3.Client)(nil)

// S3Lease is a lease held as an S3 object, written with S3's conditional
// writes: created only if absent (If-None-Match: *), renewed, taken over
// and deleted only if unchanged since this run wrote it (If-Match: its
// ETag). S3 is strongly consistent for reads after writes, and a
// conditional write that loses gets 412 Precondition Failed (or 409
// Conflict when two land at once): of two runs, exactly one holds it.
//
// Each write carries a token of its own in the object's metadata: the SDK
// retries a PUT whose answer was lost, and when the first attempt had
// landed the retry gets 412 — against this run's own write. The token
// tells that apart from a take-over, and the read gives the right ETag.
type S3Lease struct {
	c      S3
	bucket string
	key    string
	now    func() time.Time

	mu    sync.Mutex
	me    Holder
	etag  string
	token string // of the latest write attempted
	renewals
}

var _ Held = (*S3Lease)(nil)

// TokenMeta is the user metadata key of a lease write's token.
const TokenMeta = "mfdlq-write"

// ErrUnreadable is a lease object S3 refused to read (403): with the
// documented policy (no s3:ListBucket) that is also how S3 answers a read
// of an absent key, so it says nothing of whether one exists.
var ErrUnreadable = errors.New("the lease object cannot be read (403 AccessDenied): absent, or s3:GetObject is not granted")

// NotLeaseError is a lease object that holds no mfdlq lease: mfdlq never
// takes it over and never deletes it.
type NotLeaseError struct {
	Bucket, Key string
	Size        int64
}

func (e *NotLeaseError) Error() string {
	return fmt.Sprintf("s3://%s/%s holds no mfdlq lease (%d bytes that do not read as one): mfdlq neither takes it over nor deletes it; remove it yourself if nothing else keeps it there, or pass another --lease prefix",
		e.Bucket, e.Key, e.Size)
}

// s3Object is one read of the lease object.
type s3Object struct {
	found  bool
	holder Holder
	etag   string
	token  string
}

// CurrentS3 reads the lease object; ok is false when there is none. A
// 403 is ErrUnreadable; an object that is not a lease a *NotLeaseError.
func CurrentS3(ctx context.Context, c S3, bucket, key string) (h Holder, etag string, ok bool, err error) {
	o, err := readS3(ctx, c, bucket, key)
	return o.holder, o.etag, o.found, err
}

func readS3(ctx context.Context, c S3, bucket, key string) (s3Object, error) {
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	switch code := apiCode(err); {
	case err == nil:
	case code == "NoSuchKey":
		return s3Object{}, nil
	case awserr.Denied(err):
		// With %w both: a caller that cannot do with "absent" still sees
		// the denial (exit 4).
		return s3Object{}, fmt.Errorf("read the lease s3://%s/%s: %w (%w)", bucket, key, ErrUnreadable, err)
	default:
		return s3Object{}, fmt.Errorf("read the lease s3://%s/%s: %w", bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, 1024))
	if err != nil {
		return s3Object{}, fmt.Errorf("read the lease s3://%s/%s: %w", bucket, key, err)
	}
	h, ok := ParseHolder(string(b))
	if !ok || aws.ToInt64(out.ContentLength) > 1024 {
		return s3Object{}, &NotLeaseError{Bucket: bucket, Key: key, Size: max(aws.ToInt64(out.ContentLength), int64(len(b)))}
	}
	return s3Object{found: true, holder: h, etag: aws.ToString(out.ETag), token: out.Metadata[TokenMeta]}, nil
}

// AcquireS3 takes the lease object for me: it creates it if absent; when
// another live run holds it, it refuses (a *HeldError) unless takeOver;
// a dead or expired holder's object is replaced only if unchanged since
// read. A conditional write that loses is a *HeldError with Race set. An
// object that is not a lease is a *NotLeaseError, left as it is.
func AcquireS3(ctx context.Context, c S3, bucket, key string, me Holder, takeOver bool, now func() time.Time) (*S3Lease, error) {
	l := &S3Lease{c: c, bucket: bucket, key: key, me: me, now: now}
	err := l.put(ctx, "")
	if !lostRace(err) {
		if err != nil {
			return nil, err
		}
		return l, nil
	}
	cur, err := readS3(ctx, c, bucket, key)
	switch {
	case errors.Is(err, ErrUnreadable):
		// 412 said it exists; a 403 read means it is gone since (S3's
		// answer for an absent key without s3:ListBucket) or unreadable.
		// The conditional create decides which, and takes nothing held.
		return l.createAgain(ctx)
	case err != nil:
		return nil, err
	case cur.found && cur.token == l.written():
		// The SDK retried a create whose answer was lost: the 412 is our
		// own write. Keep its ETag.
		l.adopt(cur.etag)
		return l, nil
	case cur.found && !cur.holder.same(me) && Live(cur.holder, now()) && !takeOver:
		return nil, &HeldError{Holder: cur.holder}
	}
	// No ETag: deleted since; put creates it again, still only if absent.
	if err := l.put(ctx, cur.etag); err != nil {
		if lostRace(err) {
			back, _ := readS3(ctx, c, bucket, key)
			return nil, &HeldError{Holder: back.holder, Race: true}
		}
		return nil, err
	}
	return l, nil
}

// createAgain creates the object only if absent, after a read that could
// not tell whether it exists.
func (l *S3Lease) createAgain(ctx context.Context) (*S3Lease, error) {
	err := l.put(ctx, "")
	switch {
	case err == nil:
		return l, nil
	case lostRace(err):
		return nil, fmt.Errorf("s3://%s/%s exists and %w: grant s3:GetObject on the --lease prefix (docs/iam.md); mfdlq did not take it", l.bucket, l.key, ErrUnreadable)
	}
	return nil, err
}

// put writes the holder with a fresh token: only if absent when match is
// "", else only if the object's ETag is still match. The new ETag is kept.
func (l *S3Lease) put(ctx context.Context, match string) error {
	l.mu.Lock()
	l.token = newToken()
	in := &s3.PutObjectInput{Bucket: aws.String(l.bucket), Key: aws.String(l.key), Body: strings.NewReader(l.me.String()), ContentType: aws.String("text/plain"),
		Metadata: map[string]string{TokenMeta: l.token}}
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
	l.adopt(aws.ToString(out.ETag))
	return nil
}

// SetWaiting is Lease.SetWaiting for the S3 lease.
func (l *S3Lease) SetWaiting(w string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.me.Waiting = w
}

func (l *S3Lease) written() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.token
}

func (l *S3Lease) adopt(etag string) {
	l.mu.Lock()
	l.etag = etag
	l.mu.Unlock()
}

// newToken is 16 random bytes, hex: unique to one write.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Keep renews the lease every TTL/4 until Release, each renewal only if
// the object is still the one this run wrote: when another run took it
// over, lost is called with that run and renewing stops. warn gets
// renewals that failed otherwise.
func (l *S3Lease) Keep(lost func(Holder), warn func(error)) {
	l.start(func(ctx context.Context) bool {
		by, err := l.renew(ctx)
		if by != nil {
			lost(*by)
			return false
		}
		if err != nil && warn != nil {
			warn(err)
		}
		return true
	})
}

// renew writes the lease again if unchanged since this run's last write;
// by is the run that took it over (nil: still ours). A 412 whose object
// carries the token of this write is this write, landed, its answer lost
// (the SDK's retry met it): the lease is kept with that ETag.
func (l *S3Lease) renew(ctx context.Context) (by *Holder, err error) {
	l.mu.Lock()
	l.me.Expires = l.now().Add(TTL).UTC().Truncate(time.Second)
	etag := l.etag
	l.mu.Unlock()
	err = l.put(ctx, etag)
	if !lostRace(err) {
		return nil, err
	}
	cur, rerr := readS3(ctx, l.c, l.bucket, l.key)
	if rerr == nil && cur.found && cur.token == l.written() {
		l.adopt(cur.etag)
		return nil, nil
	}
	return &cur.holder, nil
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

func apiCode(err error) string { return awserr.Code(err) }
