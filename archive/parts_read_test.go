package archive

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// An export without a manifest (one of an older mfdlq, or copied without
// it) whose parts 2 and 3 are missing and part 4 is there is refused,
// naming the gap — not read as if part 1 were all of it. The old code
// read part 1 alone and ended in silence.
func TestOpenWithoutManifestRefusesAGapAnywhere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := filepath.Join(dir, "orders.jsonl")
	line := func(id string) string { return `{"MessageId":"` + id + `","Body":"b"}` + "\n" }
	write(t, first, line("a"))
	write(t, PartName(first, 4), line("d"))
	_, err := Open(context.Background(), first, nil)
	if !errors.Is(err, ErrPartMissing) || !strings.Contains(err.Error(), "orders.part-0002.jsonl") ||
		!strings.Contains(err.Error(), "parts 2 to 3") || !strings.Contains(err.Error(), "orders.part-0004.jsonl is there") {
		t.Fatalf("parts 2 and 3 missing, 4 there: %v; want ErrPartMissing naming them", err)
	}
	os.Remove(PartName(first, 4))
	write(t, filepath.Join(dir, "orders.part-0002.jsonl.bak"), line("x")) // not a part
	if f, err := Open(context.Background(), first, nil); err != nil || f.Count != 1 {
		t.Fatalf("one file alone: %v; want it read", err)
	}
}

// exportInParts runs a real export of n messages with --delete to S3
// (moto SQS and S3 through the SDK) at an in-flight limit of 10: parts of
// 10, a manifest beside them.
func exportInParts(t *testing.T, n int) (*s3.Client, S3Location, Stats) {
	t.Helper()
	c, q, _, _ := motoQueue(t, n, "")
	s3c, bucket := testS3(t)
	loc := S3Location{Bucket: bucket, Key: "dlq/orders.jsonl.gz"}
	sink, err := NewS3PartsSink(s3c, loc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Export(context.Background(), c, sink, Options{Queue: q, Backlog: n, Delete: true, Gzip: true, Wait: 1,
		Visibility: 30 * time.Second, InFlightLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Parts) != (n+9)/10 || st.Deleted != n {
		t.Fatalf("parts %d, deleted %d; want %d parts, %d deleted", len(st.Parts), st.Deleted, (n+9)/10, n)
	}
	return s3c, loc, st
}

func put(t *testing.T, c *s3.Client, bucket, key string, b []byte) {
	t.Helper()
	if _, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(b)}); err != nil {
		t.Fatal(err)
	}
}

// A replay of an export in parts reads exactly the parts its manifest
// lists and refuses, naming the part, one missing anywhere, edited,
// duplicated (a copy of another part), another export's, or one past the
// last — in S3 and in a local copy of the prefix (aws s3 cp --recursive).
func TestOpenPartsByManifest(t *testing.T) {
	t.Parallel()
	const n = 35
	s3c, loc, st := exportInParts(t, n)
	open := func(ref string) (*File, error) {
		return Open(context.Background(), ref, func(context.Context) (S3, error) { return s3c, nil })
	}
	f, err := open(loc.String())
	if err != nil {
		t.Fatalf("the export as written: %v", err)
	}
	if f.Count != n || len(f.Parts) != 4 || f.Incomplete {
		t.Fatalf("count %d, parts %d, incomplete %v; want %d, 4, false", f.Count, len(f.Parts), f.Incomplete, n)
	}
	f.Close()
	key := func(k int) string { return PartName(loc.Key, k) }
	part := func(k int) []byte { return objectBytes(t, s3c, S3Location{Bucket: loc.Bucket, Key: key(k)}) }
	p2, p3 := part(2), part(3)
	other, otherLoc, _ := exportInParts(t, n)
	foreign := objectBytes(t, other, S3Location{Bucket: otherLoc.Bucket, Key: PartName(otherLoc.Key, 3)})
	restore := func() {
		put(t, s3c, loc.Bucket, key(2), p2)
		put(t, s3c, loc.Bucket, key(3), p3)
		s3c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(loc.Bucket), Key: aws.String(key(5))})
	}
	for _, tc := range []struct {
		name   string
		break_ func()
		want   error
		names  string
	}{
		{"parts 2 and 3 missing", func() {
			for _, k := range []int{2, 3} {
				s3c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(loc.Bucket), Key: aws.String(key(k))})
			}
		}, ErrPartMissing, "part 2 of 4"},
		{"part 3 a copy of part 2", func() { put(t, s3c, loc.Bucket, key(3), p2) }, ErrPartMismatch, "part 3 of 4"},
		{"part 2 edited", func() { put(t, s3c, loc.Bucket, key(2), append(bytes.Clone(p2), p2...)) }, ErrPartMismatch, "part 2 of 4"},
		{"part 3 another export's", func() { put(t, s3c, loc.Bucket, key(3), foreign) }, ErrPartMismatch, "part 3 of 4"},
		{"a part 5 past the last", func() { put(t, s3c, loc.Bucket, key(5), p2) }, ErrPartForeign, key(5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer restore()
			tc.break_()
			_, err := open(loc.String())
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.names) {
				t.Fatalf("%v; want %v naming %q", err, tc.want, tc.names)
			}
			// The same in a local copy of the prefix.
			dir := t.TempDir()
			first := filepath.Join(dir, filepath.Base(loc.Key))
			for _, k := range []string{loc.Key, ManifestName(loc.Key), key(2), key(3), key(4), key(5)} {
				out, err := s3c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(loc.Bucket), Key: aws.String(k)})
				if err != nil {
					continue
				}
				b := new(bytes.Buffer)
				b.ReadFrom(out.Body)
				out.Body.Close()
				write(t, filepath.Join(dir, filepath.Base(k)), b.String())
			}
			if _, err := open(first); !errors.Is(err, tc.want) {
				t.Fatalf("local copy: %v; want %v", err, tc.want)
			}
		})
	}
	if len(st.Parts) != 4 {
		t.Fatal("parts changed")
	}
}
