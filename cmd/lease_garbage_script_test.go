package cmd

import (
	"context"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/rogpeppe/go-internal/testscript"
)

// env-odd sets ESC to the escape byte and LONG to 1,100 bytes of "p":
// hostile flag values a script cannot spell.
func cmdEnvOdd(ts *testscript.TestScript, neg bool, args []string) {
	ts.Setenv("ESC", "\x1b")
	ts.Setenv("LONG", strings.Repeat("p", 1100))
}

// s3-put BUCKET KEY TEXT writes TEXT as the object KEY: a lease key that
// holds something other than a lease.
func cmdS3Put(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: s3-put BUCKET KEY TEXT")
	}
	_, err := scriptS3(ts).PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(args[0]), Key: aws.String(args[1]), Body: strings.NewReader(args[2])})
	ts.Check(err)
}

// s3-body BUCKET KEY TEXT asserts that the object KEY holds TEXT exactly.
func cmdS3Body(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: s3-body BUCKET KEY TEXT")
	}
	out, err := scriptS3(ts).GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(args[0]), Key: aws.String(args[1])})
	ts.Check(err)
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	ts.Check(err)
	if string(b) != args[2] {
		ts.Fatalf("s3://%s/%s holds %q, want %q", args[0], args[1], b, args[2])
	}
}
