package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// dead is an endpoint nothing answers on: a call that goes there fails.
const dead = "http://127.0.0.1:1"

// The per-service variables reach each client (AWS_ENDPOINT_URL_SQS and
// AWS_ENDPOINT_URL_S3 over a dead AWS_ENDPOINT_URL, S3 by path as a local
// endpoint needs), and --endpoint-url wins over them as the AWS CLI's flag
// does. An export --dry-run calls both SQS (the queue) and S3 (the bucket
// and the key). Not parallel: it sets the environment.
func TestEndpointPerServiceAndFlag(t *testing.T) {
	ep := localaws.Endpoint(t)
	ctx := context.Background()
	s := localaws.NewSeeder(localaws.Config(t))
	name := localaws.UniqueName("ep")
	if _, _, err := s.CreatePair(ctx, name, name+"-dlq", 3); err != nil {
		t.Fatal(err)
	}
	bucket := strings.ToLower(name)
	c := s3.NewFromConfig(localaws.Config(t), func(o *s3.Options) { o.UsePathStyle = true })
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		flag string
		want int
	}{
		{name: "per-service variables", env: map[string]string{"AWS_ENDPOINT_URL": dead, "AWS_ENDPOINT_URL_SQS": ep, "AWS_ENDPOINT_URL_S3": ep}, want: cmdutil.ExitOK},
		{name: "S3's variable alone, no global", env: map[string]string{"AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_SQS": ep, "AWS_ENDPOINT_URL_S3": ep}, want: cmdutil.ExitOK},
		{name: "the flag wins", env: map[string]string{"AWS_ENDPOINT_URL": dead, "AWS_ENDPOINT_URL_SQS": dead, "AWS_ENDPOINT_URL_S3": dead}, flag: ep, want: cmdutil.ExitOK},
		{name: "the flag despite AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", env: map[string]string{"AWS_ENDPOINT_URL": dead, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"}, flag: ep, want: cmdutil.ExitOK},
		{name: "a dead SQS endpoint is used", env: map[string]string{"AWS_ENDPOINT_URL": ep, "AWS_ENDPOINT_URL_SQS": dead, "AWS_ENDPOINT_URL_S3": ep}, want: cmdutil.ExitUnexpected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range localaws.Env(ep) {
				t.Setenv(k, v)
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			args := []string{"export", "--queue", name + "-dlq", "--out", "s3://" + bucket + "/x.jsonl", "--dry-run", "--incident", t.TempDir()}
			if tc.flag != "" {
				args = append(args, "--endpoint-url", tc.flag)
			}
			var stdout, stderr strings.Builder
			d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
			if code := run(ctx, d, args); code != tc.want {
				t.Fatalf("exit %d, want %d\n%s", code, tc.want, stderr.String())
			}
		})
	}
}

// An endpoint given to S3 alone (AWS_ENDPOINT_URL_S3, a MinIO by host
// name) makes the S3 client address buckets by path: bucket.minio would
// not resolve. Not parallel: it sets the environment.
func TestS3PathStyleFromItsOwnEndpoint(t *testing.T) {
	for k, v := range localaws.Env(localaws.Endpoint(t)) {
		t.Setenv(k, v)
	}
	for _, tc := range []struct {
		global, s3 string
		want       bool
	}{
		{global: "", s3: "http://minio.internal:9000", want: true},
		{global: "http://moto.internal:5000", s3: "", want: true},
		{global: "", s3: "", want: false},
	} {
		t.Setenv("AWS_ENDPOINT_URL", tc.global)
		t.Setenv("AWS_ENDPOINT_URL_S3", tc.s3)
		d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader("")}, nil)
		c, err := d.S3(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := c.(*s3.Client).Options().UsePathStyle; got != tc.want {
			t.Errorf("AWS_ENDPOINT_URL=%q AWS_ENDPOINT_URL_S3=%q: path style %v, want %v", tc.global, tc.s3, got, tc.want)
		}
	}
}
