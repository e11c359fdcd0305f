package archive

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// TestMain runs the S3 tests against the local AWS: moto 5.2.1 honours
// If-None-Match: * on PutObject and CompleteMultipartUpload as S3 does.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

func testS3(t *testing.T) (*s3.Client, string) {
	t.Helper()
	c := s3.NewFromConfig(localaws.Config(t), func(o *s3.Options) { o.UsePathStyle, o.DisableLogOutputChecksumValidationSkipped = true, true })
	bucket := localaws.UniqueName("archive")
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	return c, bucket
}

// racer is a second operator: it creates the object at the export's key
// just before the export's first write reaches S3 — after the check that
// the key was free. The race is made certain, not hoped for.
type racer struct {
	*s3.Client
	theirs []byte
	raced  bool
}

func (r *racer) race(ctx context.Context, bucket, key *string) error {
	if r.raced {
		return nil
	}
	r.raced = true
	_, err := r.Client.PutObject(ctx, &s3.PutObjectInput{Bucket: bucket, Key: key, Body: bytes.NewReader(r.theirs)})
	return err
}

func (r *racer) PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	if err := r.race(ctx, in.Bucket, in.Key); err != nil {
		return nil, err
	}
	return r.Client.PutObject(ctx, in, optFns...)
}

func (r *racer) CompleteMultipartUpload(ctx context.Context, in *s3.CompleteMultipartUploadInput, optFns ...func(*s3.Options)) (*s3.CompleteMultipartUploadOutput, error) {
	if err := r.race(ctx, in.Bucket, in.Key); err != nil {
		return nil, err
	}
	return r.Client.CompleteMultipartUpload(ctx, in, optFns...)
}

func objectBytes(t *testing.T, c *s3.Client, loc S3Location) []byte {
	t.Helper()
	out, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(loc.Bucket), Key: aws.String(loc.Key)})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestS3CommitNeverOverwrites: an object created at the key after the
// check and before the upload — by PutObject (a small file) or before
// CompleteMultipartUpload (a file above the 5 MiB part size) — is kept,
// and the commit fails with ErrExists, as the check would have.
func TestS3CommitNeverOverwrites(t *testing.T) {
	t.Parallel()
	c, bucket := testS3(t)
	for _, size := range []int{1 << 10, 6 << 20} {
		loc := S3Location{Bucket: bucket, Key: "race/" + strings.Repeat("x", size%7+1) + ".jsonl"}
		if err := CheckS3(context.Background(), c, loc); err != nil {
			t.Fatalf("the key is free: %v", err)
		}
		r := &racer{Client: c, theirs: []byte("the other operator's export\n")}
		sink, err := NewS3Sink(r, loc)
		if err != nil {
			t.Fatal(err)
		}
		data := make([]byte, size)
		rand.Read(data)
		if _, err := sink.Write(data); err != nil {
			t.Fatal(err)
		}
		_, err = sink.Commit(context.Background())
		if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), loc.String()) {
			t.Fatalf("%d bytes: commit over a key taken meanwhile: %v, want ErrExists naming %s", size, err, loc)
		}
		if got := objectBytes(t, c, loc); !bytes.Equal(got, r.theirs) {
			t.Fatalf("%d bytes: the other export was replaced (%d bytes now)", size, len(got))
		}
	}
}

// TestS3CommitReadsBack: a commit whose object does not read back as
// written fails; one that does names the location.
func TestS3CommitReadsBack(t *testing.T) {
	t.Parallel()
	c, bucket := testS3(t)
	loc := S3Location{Bucket: bucket, Key: "ok.jsonl"}
	sink, err := NewS3Sink(c, loc)
	if err != nil {
		t.Fatal(err)
	}
	sink.Write([]byte("{}\n"))
	if got, err := sink.Commit(context.Background()); err != nil || got != loc.String() {
		t.Fatalf("commit = %q, %v", got, err)
	}
	bad := S3Location{Bucket: bucket, Key: "bad.jsonl"}
	sink, err = NewS3Sink(&shortRead{Client: c}, bad)
	if err != nil {
		t.Fatal(err)
	}
	sink.Write([]byte("{\"a\":1}\n{\"b\":2}\n"))
	if _, err := sink.Commit(context.Background()); !errors.Is(err, ErrReadBack) {
		t.Fatalf("commit of an object that reads back short: %v, want ErrReadBack", err)
	}
}

// shortRead is an S3 whose objects read back one byte short, as a
// truncated or replaced object would.
type shortRead struct{ *s3.Client }

func (s *shortRead) GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	out, err := s.Client.GetObject(ctx, in, optFns...)
	if err != nil {
		return nil, err
	}
	b, _ := io.ReadAll(out.Body)
	out.Body.Close()
	out.Body = io.NopCloser(bytes.NewReader(b[:len(b)-1]))
	return out, nil
}

// TestExportDeleteOnlyAfterReadBack: an export with Delete whose upload
// loses the race, or whose object does not read back, deletes nothing:
// every message is back in the queue.
func TestExportDeleteOnlyAfterReadBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := localaws.Config(t)
	sq := sqs.NewFromConfig(cfg)
	s := localaws.NewSeeder(cfg)
	c, bucket := testS3(t)
	for _, tc := range []struct {
		name string
		s3   func() S3
		want error
	}{
		{"race", func() S3 { return &racer{Client: c, theirs: []byte("theirs\n")} }, ErrExists},
		{"read back short", func() S3 { return &shortRead{Client: c} }, ErrReadBack},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := localaws.UniqueName("export-dlq")
			url, err := s.CreateQueue(ctx, name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Send(ctx, url, []string{`{"n":1}`, `{"n":2}`, `{"n":3}`}, nil); err != nil {
				t.Fatal(err)
			}
			sink, err := NewS3Sink(tc.s3(), S3Location{Bucket: bucket, Key: name + ".jsonl"})
			if err != nil {
				t.Fatal(err)
			}
			st, err := Export(ctx, sq, sink, Options{Queue: &sqsapi.Queue{Name: name, URL: url}, Backlog: 3, Delete: true, Wait: 1})
			if !errors.Is(err, tc.want) || st.Deleted != 0 {
				t.Fatalf("export: %v, deleted %d; want %v and nothing deleted", err, st.Deleted, tc.want)
			}
			if v, f, err := s.Depth(ctx, url); err != nil || v != 3 || f != 0 {
				t.Fatalf("queue holds %d visible, %d in flight (%v); want all 3 back", v, f, err)
			}
		})
	}
}
