package cmd

import (
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/internal/inflight"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// The script commands of export and redrive --from-file.
// s3-rm s3://BUCKET/KEY deletes an object: a part lost or cleaned away.
func cmdS3Rm(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: s3-rm s3://BUCKET/KEY")
	}
	loc, _, err := archive.ParseS3(args[0])
	ts.Check(err)
	_, err = scriptS3(ts).DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(loc.Bucket), Key: aws.String(loc.Key)})
	ts.Check(err)
}

// export-part s3://BUCKET/KEY N|absent asserts that the one object at KEY (its
// sibling parts not read) is a complete export of N messages: every line
// a message whose body matches its MD5OfBody, the stream ending whole.
func cmdExportPart(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: export-part s3://BUCKET/KEY N")
	}
	loc, _, err := archive.ParseS3(args[0])
	ts.Check(err)
	out, err := scriptS3(ts).GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(loc.Bucket), Key: aws.String(loc.Key)})
	if args[1] == "absent" {
		var nsk *s3types.NoSuchKey
		if !errors.As(err, &nsk) {
			ts.Fatalf("%s: want no such key, got %v", args[0], err)
		}
		return
	}
	want, aerr := strconv.Atoi(args[1])
	ts.Check(aerr)
	ts.Check(err)
	defer out.Body.Close()
	var body io.Reader = out.Body
	if archive.IsGzipName(loc.Key) {
		gz, err := gzip.NewReader(out.Body)
		ts.Check(err)
		body = gz
	}
	r, err := sqsjson.NewReader(body)
	ts.Check(err)
	n := 0
	for ; ; n++ {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		ts.Check(err)
		if sum := md5.Sum([]byte(m.Body)); hex.EncodeToString(sum[:]) != m.MD5OfBody {
			ts.Fatalf("%s: message %s: body does not match MD5OfBody", args[0], m.MessageId)
		}
	}
	if n != want {
		ts.Fatalf("%s holds %d messages, want %d", args[0], n, want)
	}
}

// inflight-limit N puts SQS's in-flight limit in front of the local AWS
// for the rest of the script: a proxy (internal/inflight) that lets each
// queue have N messages in flight, reached through AWS_ENDPOINT_URL_SQS —
// so mfdlq's per-service endpoint is exercised too.
func cmdInflightLimit(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: inflight-limit N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	cfg := scriptConfig(ts)
	p, err := inflight.New(ts.Getenv("AWS_ENDPOINT_URL"), sqs.NewFromConfig(cfg), n)
	ts.Check(err)
	hs := httptest.NewServer(p)
	ts.Defer(hs.Close)
	ts.Setenv("AWS_ENDPOINT_URL_SQS", hs.URL)
}

// sqs-atleast QUEUE N WAIT [inflight] waits up to WAIT for QUEUE to hold
// at least N visible (or in-flight) messages: the moment to kill a move or
// an export under way.
func cmdSQSAtLeast(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 && len(args) != 4 {
		ts.Fatalf("usage: sqs-atleast QUEUE N WAIT [inflight]")
	}
	inflight := len(args) == 4 && args[3] == "inflight"
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	wait, err := time.ParseDuration(args[2])
	ts.Check(err)
	s := seeder(ts)
	u, err := s.SQS.GetQueueUrl(context.Background(), getURL(args[0]))
	ts.Check(err)
	for deadline := time.Now().Add(wait); ; time.Sleep(100 * time.Millisecond) {
		v, f, err := s.Depth(context.Background(), *u.QueueUrl)
		ts.Check(err)
		if inflight {
			v = f
		}
		if v >= n {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s: %d visible after %s, want at least %d", args[0], v, wait, n)
		}
	}
}

func scriptS3(ts *testscript.TestScript) *s3.Client {
	return s3.NewFromConfig(scriptConfig(ts), func(o *s3.Options) {
		o.UsePathStyle, o.DisableLogOutputChecksumValidationSkipped = true, true
	})
}

// gen-bodies FILE N writes N distinct JSON bodies, one a line; a few hold
// characters a careless writer would change (<, &, unicode, escapes).
func cmdGenBodies(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: gen-bodies FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"order_id":"o-%04d","note":"<b>&amp; é \u00e9 \\n","n":%d}`+"\n", i, i)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o600))
}

// s3-bucket NAME creates a bucket on the local AWS.
func cmdS3Bucket(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: s3-bucket NAME")
	}
	_, err := scriptS3(ts).CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(args[0])})
	ts.Check(err)
}

// export-match FILE|s3://… BODIES ATTR=VALUE asserts that an export holds
// each body of BODIES exactly once, byte for byte, with the message
// attribute ATTR=VALUE, its SentTimestamp and a matching MD5OfBody.
func cmdExportMatch(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: export-match FILE BODIES ATTR=VALUE")
	}
	ref := args[0]
	if !strings.HasPrefix(ref, "s3://") {
		ref = ts.MkAbs(ref)
	}
	f, err := archive.Open(context.Background(), ref, func(context.Context) (archive.S3, error) { return scriptS3(ts), nil })
	ts.Check(err)
	defer f.Close()
	r, err := f.Messages()
	ts.Check(err)
	want := bodyCounts(ts, args[1])
	k, v, _ := strings.Cut(args[2], "=")
	n := 0
	for {
		m, err := r.Next()
		if err != nil {
			break
		}
		n++
		if want[m.Body] != 1 {
			ts.Fatalf("body not sent, or twice: %q", m.Body)
		}
		want[m.Body]--
		if got, _ := m.StringAttribute(k); got != v {
			ts.Fatalf("message %s: attribute %s = %q, want %q", m.MessageId, k, got, v)
		}
		if _, ok := m.SentTime(); !ok || m.ReceiptHandle != "" || m.MD5OfBody == "" {
			ts.Fatalf("message %s: want SentTimestamp and MD5OfBody, no ReceiptHandle: %+v", m.MessageId, m)
		}
	}
	for body, left := range want {
		if left != 0 {
			ts.Fatalf("body missing from the export: %q", body)
		}
	}
	if n != f.Count {
		ts.Fatalf("read %d messages, the file counts %d", n, f.Count)
	}
}

// queue-match QUEUE BODIES [MAXDUP] drains QUEUE and asserts it held each
// body of BODIES at least once, and no more than MAXDUP (default 0)
// duplicates in all.
func cmdQueueMatch(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 && len(args) != 3 {
		ts.Fatalf("usage: queue-match QUEUE BODIES [MAXDUP]")
	}
	maxDup := 0
	if len(args) == 3 {
		var err error
		maxDup, err = strconv.Atoi(args[2])
		ts.Check(err)
	}
	s := seeder(ts)
	u, err := s.SQS.GetQueueUrl(context.Background(), getURL(args[0]))
	ts.Check(err)
	msgs, err := s.Drain(context.Background(), *u.QueueUrl)
	ts.Check(err)
	want := bodyCounts(ts, args[1])
	dups := 0
	for _, m := range msgs {
		b := aws.ToString(m.Body)
		n, ok := want[b]
		switch {
		case !ok:
			ts.Fatalf("%s: body not expected: %q", args[0], b)
		case n <= 0:
			dups++ // seen before
		}
		want[b]-- // 0 once seen; below 0 for each duplicate
	}
	for body, left := range want {
		if left > 0 {
			ts.Fatalf("%s: body missing: %q", args[0], body)
		}
	}
	if dups > maxDup {
		ts.Fatalf("%s: %d duplicate(s), at most %d allowed", args[0], dups, maxDup)
	}
	ts.Logf("%s: %s, every body, %s", args[0], plural.Of(len(msgs), "message"), plural.Of(dups, "duplicate"))
}

func bodyCounts(ts *testscript.TestScript, file string) map[string]int {
	want := map[string]int{}
	for _, line := range strings.Split(ts.ReadFile(file), "\n") {
		if strings.TrimSpace(line) != "" {
			want[line]++
		}
	}
	return want
}
