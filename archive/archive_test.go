package archive

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/sqsjson"
)

func TestFileSinkNeverReplacesNorFollows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "a.jsonl")
	s, err := NewFileSink(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write([]byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	// Something appears under the final name while the export runs.
	if err := os.WriteFile(out, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(context.Background()); !errors.Is(err, ErrExists) {
		t.Fatalf("Commit over a new file: %v, want ErrExists", err)
	}
	s.Abort() // what Export does when nothing was deleted
	if b, _ := os.ReadFile(out); string(b) != "theirs" {
		t.Errorf("their file was changed: %q", b)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(filepath.Join(dir, "victim"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := NewFileSink(link); !errors.Is(err, ErrExists) {
		t.Errorf("a symlink as --out: %v, want ErrExists", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	ok := filepath.Join(dir, "b.jsonl")
	s, err = NewFileSink(ok)
	if err != nil {
		t.Fatal(err)
	}
	s.Write([]byte("x\n"))
	if _, err := s.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(ok); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", st.Mode(), err)
	}
}

func TestOpenNamesTheBadLine(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		in   string
		line int
	}{
		"no body":        {`{"MessageId":"a","Body":""}` + "\n" + `{"MessageId":"b"}` + "\n", 2},
		"not json":       {"\n\nid,body\n", 3},
		"no MessageId":   {`{"Body":"x"}`, 1},
		"twice the same": {`{"MessageId":"a","Body":"x"}` + "\n" + `{"MessageId":"a","Body":"y"}`, 2},
	} {
		path := filepath.Join(t.TempDir(), "f.jsonl")
		os.WriteFile(path, []byte(tc.in), 0o600)
		_, err := Open(context.Background(), path, nil)
		var le *sqsjson.LineError
		if !errors.As(err, &le) || le.Line != tc.line {
			t.Errorf("%s: %v; want a LineError at line %d", name, err, tc.line)
		}
	}
}

func TestParseS3(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"s3://b-1/k/x.jsonl.gz": "", "s3://B/x": "not a bucket name", "s3://bucket": "name the object",
		"s3://bucket/dir/": "name the object",
		"s3://bucket/..":   `".." segment`, "s3://bucket/.": `"." segment`, "s3://bucket/a/b/..": `".." segment`,
		"s3://bucket/a/../b.jsonl": `".." segment`, "s3://bucket/./b.jsonl": `"." segment`,
		"s3://bucket//b.jsonl": "empty segment", "s3://bucket/a//b.jsonl": "empty segment",
		"s3://bucket/a\x01b": "control character", "s3://bucket/a\\b": "backslash",
		"s3://bucket/a/...jsonl": "", "s3://bucket/a.b/c..d": "", "s3://my.bucket-1/x": "",
		"s3://ab/x": "not a bucket name", "s3://a..b/x": "two dots", "s3://a.-b/x": "dot next to a hyphen",
		"s3://192.168.5.4/x": "IP address", "s3://xn--abc/x": "reserved", "s3://sthree-x/x": "reserved",
		"s3://data-s3alias/x": "reserved", "s3://data--x-s3/x": "reserved", "s3://-abc/x": "not a bucket name",
		"s3://abc-/x": "not a bucket name", "s3://" + strings.Repeat("a", 64) + "/x": "not a bucket name",
		"s3://bucket/" + strings.Repeat("k", 1025): "1025 bytes", "s3://bucket/\xff": "UTF-8",
	} {
		_, ok, err := ParseS3(in)
		if !ok || (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("ParseS3(%q) = %v, %v; want error containing %q", in, ok, err, want)
		}
	}
	if _, ok, _ := ParseS3("out.jsonl"); ok {
		t.Error("a file name taken for s3://")
	}
}

// TestSourceActsLikeAQueue: what the mover relies on — a handle per
// receive, hand-back at visibility 0, delete only with the current handle,
// depth of what is left, earlier runs' work skipped.
func TestSourceActsLikeAQueue(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f.jsonl")
	var b strings.Builder
	for _, id := range []string{"a", "b", "c", "d"} {
		b.WriteString(`{"MessageId":"` + id + `","Body":"` + id + `","Attributes":{"MessageGroupId":"g"}}` + "\n")
	}
	os.WriteFile(path, []byte(b.String()), 0o600)
	f, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src, err := NewSource(f, nil, func(id string) bool { return id == "d" })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	url := aws.String(src.URL)
	recv := func(n int32) []types.Message {
		out, err := src.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: n, VisibilityTimeout: 30})
		if err != nil {
			t.Fatal(err)
		}
		return out.Messages
	}
	first := recv(2)
	if len(first) != 2 || *first[0].MessageId != "a" || first[0].Attributes["MessageGroupId"] != "g" {
		t.Fatalf("first receive: %+v", first)
	}
	src.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: url, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{{Id: aws.String("0"), ReceiptHandle: first[1].ReceiptHandle}}})
	again := recv(10)
	if len(again) != 2 || *again[0].MessageId != "b" || *again[1].MessageId != "c" {
		t.Fatalf("after handing b back: %+v (d was done by an earlier run)", again)
	}
	del, _ := src.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: url, Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("0"), ReceiptHandle: first[0].ReceiptHandle},
		{Id: aws.String("1"), ReceiptHandle: first[1].ReceiptHandle}, // stale: b was received again
		{Id: aws.String("2"), ReceiptHandle: again[0].ReceiptHandle},
	}})
	if len(del.Successful) != 2 || len(del.Failed) != 1 || *del.Failed[0].Id != "1" {
		t.Fatalf("delete: %+v", del)
	}
	attrs, _ := src.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url})
	if attrs.Attributes["ApproximateNumberOfMessages"] != "0" || attrs.Attributes["ApproximateNumberOfMessagesNotVisible"] != "1" || src.Left() != 1 {
		t.Errorf("depth %v, left %d; want c in flight only", attrs.Attributes, src.Left())
	}
}

// Open of a first part reads the parts after it, in order, as one export:
// a MessageId twice across parts is refused naming the part and line, and
// a part missing before the last is refused rather than skipped.
func TestOpenReadsParts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := filepath.Join(dir, "orders.jsonl")
	line := func(id string) string { return `{"MessageId":"` + id + `","Body":"b-` + id + `"}` + "\n" }
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(first, line("a")+line("b"))
	write(PartName(first, 2), line("c"))
	write(PartName(first, 3), line("d")+line("e"))
	f, err := Open(context.Background(), first, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Messages()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for {
		m, err := r.Next()
		if err != nil {
			break
		}
		ids = append(ids, m.MessageId)
	}
	f.Close()
	if strings.Join(ids, ",") != "a,b,c,d,e" || f.Count != 5 || len(f.Parts) != 3 {
		t.Fatalf("read %v, count %d, parts %v; want a..e, 5, 3 parts", ids, f.Count, f.Parts)
	}

	write(PartName(first, 3), line("d")+line("b"))
	_, err = Open(context.Background(), first, nil)
	if err == nil || !strings.Contains(err.Error(), "orders.part-0003.jsonl: line 2: MessageId b again (first on line 2 of part 1)") {
		t.Fatalf("a MessageId in two parts: %v", err)
	}

	os.Remove(PartName(first, 2))
	if _, err = Open(context.Background(), first, nil); !errors.Is(err, ErrPartMissing) {
		t.Fatalf("part 2 missing, part 3 there: %v, want ErrPartMissing", err)
	}
}
