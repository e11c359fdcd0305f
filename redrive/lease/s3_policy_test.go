package lease

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/internal/faultproxy"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// policyProxy is S3 under docs/iam.md's lease policy (no s3:ListBucket):
// a read of the absent lease key answers 403, not NoSuchKey. dropPut, when
// it returns true for a PUT, loses that PUT's answer after S3 carried it
// out (the SDK then retries it). It returns a client through the proxy.
func policyProxy(t *testing.T, key string, dropPut func(r *http.Request) bool) *s3.Client {
	t.Helper()
	p := faultproxy.New(localaws.Endpoint(t), 0, 1)
	p.Choose = func(r *http.Request) string {
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/"+key):
			return faultproxy.Forbid404
		case r.Method == http.MethodPut && dropPut != nil && dropPut(r):
			return faultproxy.DropAfter
		}
		return faultproxy.None
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	cfg := localaws.Config(t)
	cfg.BaseEndpoint = aws.String(srv.URL)
	return s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
}

// Under the documented policy the first run, and every run after a clean
// release, finds the lease absent (a 403 on the absent key), takes it
// with the conditional create, and a second run is still refused.
func TestS3LeaseAbsentKeyAnswers403(t *testing.T) {
	_, b := s3Bucket(t)
	ctx := context.Background()
	key := "leases/123456789012/us-east-1/orders-dlq.lease"
	c := policyProxy(t, key, nil)
	if _, _, _, err := CurrentS3(ctx, c, b, key); !errors.Is(err, ErrUnreadable) {
		t.Fatalf("the proxy does not answer 403 for the absent key: %v", err)
	}
	store := s3Store{c: c, bucket: b, key: key}
	for round := range 2 {
		if h, ok, err := store.Current(ctx); ok || err != nil {
			t.Fatalf("round %d: absent lease read as %+v %v %v", round, h, ok, err)
		}
		held, err := store.Acquire(ctx, Me("alice", "r-a", time.Now()), false, time.Now)
		if err != nil {
			t.Fatalf("round %d: the first run is refused: %v", round, err)
		}
		var he *HeldError
		if _, err := store.Acquire(ctx, Me("bob", "r-b", time.Now()), false, time.Now); !errors.As(err, &he) || he.Holder.Run != "r-a" {
			t.Fatalf("round %d: a second run: %v, want held by r-a", round, err)
		}
		if err := held.Release(ctx); err != nil {
			t.Fatalf("round %d: release: %v", round, err)
		}
	}
}

// The SDK retries a conditional PUT whose answer was lost; its retry gets
// 412 against this run's own write. The run recognises its token, keeps
// the lease with the right ETag, renews again and releases the object.
func TestS3LeaseLostAnswerIsOwnWrite(t *testing.T) {
	direct, b := s3Bucket(t)
	ctx := context.Background()
	key := "leases/1/us-east-1/q.lease"
	var creates, renewals atomic.Int64
	c := policyProxy(t, key, func(r *http.Request) bool {
		if r.Header.Get("If-None-Match") != "" {
			return creates.Add(1) == 1 // the create's first attempt
		}
		return r.Header.Get("If-Match") != "" && renewals.Add(1) == 1 // the first renewal's first attempt
	})
	l, err := AcquireS3(ctx, c, b, key, Me("alice", "r-a", time.Now()), false, time.Now)
	if err != nil {
		t.Fatalf("a create whose answer was lost: %v", err)
	}
	if creates.Load() < 2 {
		t.Fatalf("the SDK did not retry the create (%d attempts): the test proves nothing", creates.Load())
	}
	by, err := l.renew(ctx)
	if by != nil || err != nil {
		t.Fatalf("a renewal whose answer was lost: lost to %+v, %v", by, err)
	}
	if renewals.Load() < 2 {
		t.Fatalf("the SDK did not retry the renewal (%d attempts)", renewals.Load())
	}
	obj, err := readS3(ctx, direct, b, key)
	if err != nil || obj.etag != l.etag || obj.token != l.written() {
		t.Fatalf("kept ETag %s token %s, the object's %+v %v", l.etag, l.written(), obj, err)
	}
	if by, err := l.renew(ctx); by != nil || err != nil {
		t.Fatalf("the next renewal: %+v %v", by, err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := direct.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(b), Key: aws.String(key)}); apiCode(err) != "NotFound" {
		t.Fatalf("the lease object is left after release: %v", err)
	}
}

// A lease object holding garbage is a refusal naming the object, with or
// without --take-over, and mfdlq leaves it as it is.
func TestS3LeaseGarbageIsRefused(t *testing.T) {
	c, b := s3Bucket(t)
	ctx := context.Background()
	for _, body := range []string{"not a lease", strings.Repeat("x", 5000), "run=r expires=never"} {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String("g.lease"), Body: strings.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
		for _, takeOver := range []bool{false, true} {
			var nl *NotLeaseError
			_, err := AcquireS3(ctx, c, b, "g.lease", Me("alice", "r-a", time.Now()), takeOver, time.Now)
			if !errors.As(err, &nl) || !strings.Contains(err.Error(), "s3://"+b+"/g.lease holds no mfdlq lease") {
				t.Fatalf("%.20q take-over %v: %v", body, takeOver, err)
			}
		}
		if _, _, err := (s3Store{c: c, bucket: b, key: "g.lease"}).Current(ctx); err == nil {
			t.Fatalf("%.20q: Current read garbage as no error", body)
		}
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b), Key: aws.String("g.lease")})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(out.Body)
		out.Body.Close()
		if string(got) != body {
			t.Fatalf("the garbage object was changed: %.40q", got)
		}
	}
}
