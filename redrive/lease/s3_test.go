package lease

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

func s3Bucket(t *testing.T) (*s3.Client, string) {
	t.Helper()
	c := s3.NewFromConfig(localaws.Config(t), func(o *s3.Options) { o.UsePathStyle = true })
	b := strings.ToLower(localaws.UniqueName("lease"))
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
		t.Fatal(err)
	}
	return c, b
}

// The local S3 (moto 5.2.1) honours the conditions the S3 lease stands on:
// If-None-Match: * on a key that exists, If-Match with another ETag on a
// put and on a delete all fail with 412 PreconditionFailed.
func TestLocalS3HonoursConditionalWrites(t *testing.T) {
	c, b := s3Bucket(t)
	ctx := context.Background()
	put := func(in *s3.PutObjectInput) (*s3.PutObjectOutput, error) {
		in.Bucket, in.Key, in.Body = aws.String(b), aws.String("k"), strings.NewReader("x")
		return c.PutObject(ctx, in)
	}
	first, err := put(&s3.PutObjectInput{IfNoneMatch: aws.String("*")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := put(&s3.PutObjectInput{IfNoneMatch: aws.String("*")}); apiCode(err) != "PreconditionFailed" {
		t.Fatalf("If-None-Match on an existing key: %v", err)
	}
	if _, err := put(&s3.PutObjectInput{IfMatch: aws.String(`"0123"`)}); apiCode(err) != "PreconditionFailed" {
		t.Fatalf("If-Match with another ETag: %v", err)
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b), Key: aws.String("k"), IfMatch: aws.String(`"0123"`)}); apiCode(err) != "PreconditionFailed" {
		t.Fatalf("delete If-Match with another ETag: %v", err)
	}
	if _, err := put(&s3.PutObjectInput{IfMatch: first.ETag}); err != nil {
		t.Fatalf("If-Match with its ETag: %v", err)
	}
}

// Of several runs that take the S3 lease at the same moment exactly one
// gets it, the others told who holds it; a renewal after a take-over
// learns it lost; the old holder's release leaves the new holder's object.
func TestS3LeaseRaceTakeOverRelease(t *testing.T) {
	c, b := s3Bucket(t)
	ctx := context.Background()
	loc, err := ParseLocation("s3://" + b + "/leases/")
	if err != nil {
		t.Fatal(err)
	}
	key := loc.Key("123456789012", "us-east-1", "orders-dlq")
	if key != "leases/123456789012/us-east-1/orders-dlq.lease" {
		t.Fatalf("key %q", key)
	}
	const n = 4
	leases := make([]*S3Lease, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			leases[i], errs[i] = AcquireS3(ctx, c, b, key, Me("op", "run-"+strconv.Itoa(i), time.Now()), false, time.Now)
		}()
	}
	wg.Wait()
	var winner *S3Lease
	for i := range n {
		var held *HeldError
		switch {
		case errs[i] == nil && winner == nil:
			winner = leases[i]
		case errs[i] == nil:
			t.Fatal("two runs hold the S3 lease")
		case !errors.As(errs[i], &held) || held.Holder.Run == "":
			t.Fatalf("run %d: %v; want a HeldError naming the holder", i, errs[i])
		}
	}
	if winner == nil {
		t.Fatal("no run got the S3 lease")
	}
	thief, err := AcquireS3(ctx, c, b, key, Me("bob", "r-thief", time.Now()), true, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	// The old holder's renewal (Keep's conditional put) finds the object
	// changed: lost, to the thief.
	if err := winner.put(ctx, winner.etag); !lostRace(err) {
		t.Fatalf("renewal after a take-over: %v, want a lost race", err)
	}
	if err := winner.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if cur, _, ok, _ := CurrentS3(ctx, c, b, key); !ok || cur.Run != "r-thief" {
		t.Fatalf("after the old holder's release the lease is %+v, want the thief's", cur)
	}
	if err := thief.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := CurrentS3(ctx, c, b, key); ok || err != nil {
		t.Fatalf("lease left after release: %v %v", ok, err)
	}
}

// An expired holder's lease is taken without --take-over; a live one
// refuses, naming it.
func TestS3LeaseExpiredIsTaken(t *testing.T) {
	c, b := s3Bucket(t)
	ctx := context.Background()
	old := Me("alice", "r-old", time.Now().Add(-time.Hour))
	if _, err := AcquireS3(ctx, c, b, "k.lease", old, false, time.Now); err != nil {
		t.Fatal(err)
	}
	l, err := AcquireS3(ctx, c, b, "k.lease", Me("bob", "r-new", time.Now()), false, time.Now)
	if err != nil {
		t.Fatalf("expired lease not taken: %v", err)
	}
	var held *HeldError
	if _, err := AcquireS3(ctx, c, b, "k.lease", Me("carol", "r-3", time.Now()), false, time.Now); !errors.As(err, &held) || held.Holder.Run != "r-new" {
		t.Fatalf("live lease: %v, want held by r-new", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestParseLocation(t *testing.T) {
	for in, want := range map[string]string{"s3://my-bucket": "my-bucket|", "s3://my-bucket/": "my-bucket|", "s3://my-bucket/a/b/": "my-bucket|a/b",
		"s3://my-bucket/" + strings.Repeat("p", maxPrefix): "my-bucket|" + strings.Repeat("p", maxPrefix)} {
		l, err := ParseLocation(in)
		if err != nil || l.Bucket+"|"+l.Prefix != want {
			t.Errorf("%.60s: %+v %v", in, l, err)
		}
	}
	for in, want := range map[string]string{
		"":                          "use s3://BUCKET/PREFIX",
		"bucket/key":                "use s3://BUCKET/PREFIX",
		"s3://":                     "not a bucket name",
		"s3://UPPER/x":              "not a bucket name",
		"https://b/k":               "use s3://BUCKET/PREFIX",
		"s3://my-bucket/a/../b":     `the prefix: it has a ".." segment`,
		"s3://my-bucket/..":         `the prefix: it has a ".." segment`,
		"s3://my-bucket/./a":        `the prefix: it has a "." segment`,
		"s3://my-bucket/a//b":       "the prefix: it has an empty segment",
		"s3://my-bucket//a":         "the prefix: it has an empty segment",
		"s3://my-bucket/a\\b":       "a control character or a backslash",
		"s3://my-bucket/a\x1b[31mb": "a control character or a backslash",
		"s3://my-bucket/a\xffb":     "not valid UTF-8",
		"s3://my..bucket/a":         "two dots in a row",
		"s3://my-bucket/" + strings.Repeat("p", 1100):        "the prefix: it is 1100 bytes, at most 891 fit",
		"s3://my-bucket/" + strings.Repeat("p", maxPrefix+1): "at most 891 fit",
	} {
		_, err := ParseLocation(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.60q: %v, want %q", in, err, want)
		}
		if err != nil && (len(err.Error()) > 400 || strings.ContainsRune(err.Error(), 0x1b)) {
			t.Errorf("%.60q: the error is %d bytes or holds an escape: %q", in, len(err.Error()), err)
		}
	}
}
