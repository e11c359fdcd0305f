package s3api

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// TestFetcherAgainstS3 reads pointers' objects from the local S3: one
// read and redacted, one missing, one over the cap, one past the limit;
// and the bucket keeps every object (a fetch never deletes).
func TestFetcherAgainstS3(t *testing.T) {
	ctx := context.Background()
	c := s3.NewFromConfig(localaws.Config(t), func(o *s3.Options) {
		o.UsePathStyle, o.DisableLogOutputChecksumValidationSkipped = true, true
	})
	bucket := strings.ToLower(localaws.UniqueName("payloads"))
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	put := func(key, body string) {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	small := `{"order_id":"o-1","amount":"12.50","email":"ana.silva@example.com"}`
	put("small", small)
	put("big", `{"blob":"`+strings.Repeat("x", 300)+`"}`)
	put("empty", "")
	f := NewFetcher(ctx, c, 4, 200)
	p := func(key string) envelope.Pointer { return envelope.Pointer{Bucket: bucket, Key: key, Size: -1} }
	got := []envelope.Fetched{f.Fetch(p("small")), f.Fetch(p("gone")), f.Fetch(p("big")), f.Fetch(p("empty")), f.Fetch(p("small"))}
	want := []envelope.Fetched{
		{Status: envelope.FetchRead, Body: []byte(`{"order_id":"o-1","amount":"12.50","email":"[redacted:email]"}`), Size: int64(len(small))},
		{Status: envelope.FetchMissing, Size: -1},
		{Status: envelope.FetchTooLarge, Size: 311},
		{Status: envelope.FetchRead, Body: []byte{}, Size: 0},
		{Status: envelope.FetchSkipped, Size: -1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if f.Redacted["email"] != 1 {
		t.Errorf("redacted %v, want one email", f.Redacted)
	}
	// A size attribute over the cap costs no call.
	if r := NewFetcher(ctx, c, 1, 200).Fetch(envelope.Pointer{Bucket: bucket, Key: "small", Size: 5000}); r.Status != envelope.FetchTooLarge || r.Size != 5000 {
		t.Errorf("size attribute over the cap: %+v", r)
	}
	for _, key := range []string{"small", "big", "empty"} {
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("%s no longer in the bucket: %v", key, err)
		}
		var b bytes.Buffer
		_, _ = b.ReadFrom(out.Body)
		out.Body.Close()
		if key == "small" && b.String() != small {
			t.Errorf("object changed: %q", b.String())
		}
	}
}

// deniedGetter answers every read with 403, as S3 does without
// s3:GetObject.
type deniedGetter struct{ calls int }

func (d *deniedGetter) GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	d.calls++
	return nil, forbidden()
}

func TestFetcherStopsAfterDenied(t *testing.T) {
	d := &deniedGetter{}
	f := NewFetcher(context.Background(), d, 10, 0)
	for range 3 {
		if r := f.Fetch(envelope.Pointer{Bucket: "b", Key: "k", Size: -1}); r.Status != envelope.FetchDenied {
			t.Fatalf("status %s, want denied", r.Status)
		}
	}
	if d.calls != 1 || !strings.Contains(f.Denied(), "docs/iam.md") {
		t.Errorf("%d calls (want 1), denied %q", d.calls, f.Denied())
	}
}
