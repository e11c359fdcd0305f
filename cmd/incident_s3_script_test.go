package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/rogpeppe/go-internal/testscript"
)

// s3-get BUCKET KEY FILE copies the object KEY into FILE, for grep.
func cmdS3Get(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: s3-get BUCKET KEY FILE")
	}
	out, err := scriptS3(ts).GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(args[0]), Key: aws.String(args[1])})
	ts.Check(err)
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), b, 0o600))
}

// mode PATH PERM asserts a file's permission bits (0600, 0700).
func cmdMode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: mode PATH PERM")
	}
	st, err := os.Lstat(ts.MkAbs(args[0]))
	ts.Check(err)
	if got := "0" + strconv.FormatUint(uint64(st.Mode().Perm()), 8); got != args[1] {
		ts.Fatalf("%s has mode %s, want %s", args[0], got, args[1])
	}
}

// s3-append BUCKET KEY LINE appends LINE to the object KEY, as another
// writer of an incident would (read, then write the whole object).
func cmdS3Append(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: s3-append BUCKET KEY LINE")
	}
	ctx := context.Background()
	c := scriptS3(ts)
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(args[0]), Key: aws.String(args[1])})
	ts.Check(err)
	b, err := io.ReadAll(out.Body)
	out.Body.Close()
	ts.Check(err)
	b = append(b, args[2]+"\n"...)
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(args[0]), Key: aws.String(args[1]), Body: bytes.NewReader(b)})
	ts.Check(err)
}
