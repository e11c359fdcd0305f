package cmd

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// A second operator's export lands on the same key between the check and
// the upload (made certain by a proxy that creates it as the first
// PutObject goes by): the conditional upload keeps theirs, and the export
// refuses as the check does — exit 2, naming the key — and with --delete
// deletes nothing.
func TestExportS3RaceRefusedNothingDeleted(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	s := localaws.NewSeeder(cfg)
	name, _, dlq, _ := seedOrders(t, s, "race", 12, nil)
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle, o.DisableLogOutputChecksumValidationSkipped = true, true })
	bucket := strings.ToLower(localaws.UniqueName("race"))
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	key := "dlq/" + name + ".jsonl"
	theirs := []byte("the other operator's export\n")
	target, _ := url.Parse(localaws.Endpoint(t))
	proxy := httputil.NewSingleHostReverseProxy(target)
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/"+key) {
			once.Do(func() {
				if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(theirs)}); err != nil {
					t.Error(err)
				}
			})
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	code := run(ctx, d, []string{"export", "--queue", name + "-dlq", "--out", "s3://" + bucket + "/" + key, "--delete", "--yes",
		"--endpoint-url", srv.URL, "--incident", t.TempDir()})
	t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	if code != cmdutil.ExitUsage {
		t.Fatalf("exit %d, want %d (the same refusal as the check before the export)", code, cmdutil.ExitUsage)
	}
	if want := "--out s3://" + bucket + "/" + key + ": already exists"; !strings.Contains(stderr.String(), want) {
		t.Fatalf("stderr does not name the key: want %q", want)
	}
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if !bytes.Equal(got, theirs) {
		t.Fatalf("the other export was replaced: %q", got)
	}
	if v, f, err := s.Depth(ctx, dlq); err != nil || v != 12 || f != 0 {
		t.Fatalf("DLQ holds %d visible, %d in flight (%v): want all 12 back, none deleted", v, f, err)
	}
}
