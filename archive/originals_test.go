package archive

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/sqsjson"
)

const dlqARN = "arn:aws:sqs:us-east-1:123456789012:orders-dlq"

func readOriginals(t *testing.T, path string) []sqsjson.Message {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	msgs, err := sqsjson.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// TestOriginalsAppendDurably: each Append is on disk when it returns, in
// the export format, marked as originals of the DLQ rather than exported
// from it, the receipt handle left out; a second run appends.
func TestOriginalsAppendDurably(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "transform-originals.jsonl")
	o, err := OpenOriginals(path, dlqARN, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	batch := []sqsjson.Message{
		{MessageId: "a", ReceiptHandle: "rh-a", Body: `{"version":2}`, Attributes: map[string]string{"MessageGroupId": "g", sqsjson.AttrExportedFrom: "arn:x"}},
		{MessageId: "b", ReceiptHandle: "rh-b", Body: "text <&>"},
	}
	if err := o.Append(batch); err != nil {
		t.Fatal(err)
	}
	// Read while the file is open: Append synced, nothing is buffered.
	got := readOriginals(t, path)
	if len(got) != 2 || got[0].Body != `{"version":2}` || got[1].Body != "text <&>" || got[0].ReceiptHandle != "" {
		t.Fatalf("records %+v", got)
	}
	if a := got[0].Attributes; a[sqsjson.AttrOriginalOf] != dlqARN || a[sqsjson.AttrTransformRun] != "run-1" || a["MessageGroupId"] != "g" || a[sqsjson.AttrExportedFrom] != "" {
		t.Fatalf("attributes %v", a)
	}
	if arn, ok := OriginalOf(&got[1]); !ok || arn != dlqARN {
		t.Fatalf("OriginalOf %q %v", arn, ok)
	}
	if batch[0].ReceiptHandle != "rh-a" || batch[0].Attributes[sqsjson.AttrOriginalOf] != "" {
		t.Fatal("Append changed the messages it was given")
	}
	o.Close()
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	o2, err := OpenOriginals(path, dlqARN, "run-2")
	if err != nil {
		t.Fatal(err)
	}
	if err := o2.Append([]sqsjson.Message{{MessageId: "c", Body: "x"}}); err != nil {
		t.Fatal(err)
	}
	o2.Close()
	if got := readOriginals(t, path); len(got) != 3 || got[2].Attributes[sqsjson.AttrTransformRun] != "run-2" {
		t.Fatalf("after a second run: %d records", len(got))
	}
}

// TestOriginalsCutATornLine: a crash mid-write leaves a torn last line; the
// next run cuts it (its copy was never sent) so the file stays replayable.
func TestOriginalsCutATornLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "transform-originals.jsonl")
	whole := `{"MessageId":"a","Body":"x"}` + "\n"
	if err := os.WriteFile(path, []byte(whole+`{"MessageId":"b","Bo`), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := OpenOriginals(path, dlqARN, "run-2")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Append([]sqsjson.Message{{MessageId: "c", Body: "y"}}); err != nil {
		t.Fatal(err)
	}
	o.Close()
	got := readOriginals(t, path)
	if len(got) != 2 || got[0].MessageId != "a" || got[1].MessageId != "c" {
		t.Fatalf("records %+v", got)
	}
	// A file of one torn line is cut to nothing.
	if err := os.WriteFile(path, []byte(`{"Mess`), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err = OpenOriginals(path, dlqARN, "run-3")
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Fatalf("left %q", b)
	}
}

// TestOriginalsKeepALastRecordWithoutNewline: an editor that drops the
// file's final newline leaves a whole last record, whose repaired copy
// may have been sent: the next run of the incident keeps it (the newline
// put back) and appends after it, never cutting a whole record; a torn
// record is cut and said (issue 48).
func TestOriginalsKeepALastRecordWithoutNewline(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "transform-originals.jsonl")
	whole := `{"MessageId":"a","Body":"x"}` + "\n" + `{"MessageId":"b","Body":"{\"v\":2}","Attributes":{"mfdlq.OriginalOf":"arn"}}`
	if err := os.WriteFile(path, []byte(whole), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := OpenOriginals(path, dlqARN, "run-2")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Append([]sqsjson.Message{{MessageId: "c", Body: "y"}}); err != nil {
		t.Fatal(err)
	}
	o.Close()
	got := readOriginals(t, path)
	if len(got) != 3 || got[0].MessageId != "a" || got[1].MessageId != "b" || got[2].MessageId != "c" {
		t.Fatalf("records %+v", got)
	}
	if err := os.WriteFile(path, []byte(`{"MessageId":"a","Body":"x"}`+"\n"+`{"MessageId":"b","Bo`), 0o600); err != nil {
		t.Fatal(err)
	}
	if o, err = OpenOriginals(path, dlqARN, "run-3"); err != nil {
		t.Fatal(err)
	}
	o.Close()
	if !strings.Contains(o.Torn(), "cut a torn last line of 20 bytes") {
		t.Errorf("a cut torn line not said: %q", o.Torn())
	}
}

// TestOriginalsRefuseASymlink: never written through a link.
func TestOriginalsRefuseASymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	os.WriteFile(target, nil, 0o600)
	link := filepath.Join(dir, "transform-originals.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenOriginals(link, dlqARN, "r"); err == nil {
		t.Fatal("opened through a symlink")
	}
}

// TestOriginalsReplayAsAnExport: the file is what --from-file reads.
func TestOriginalsReplayAsAnExport(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "transform-originals.jsonl")
	o, err := OpenOriginals(path, dlqARN, "r")
	if err != nil {
		t.Fatal(err)
	}
	o.Append([]sqsjson.Message{{MessageId: "a", Body: "x"}, {MessageId: "b", Body: "y"}})
	o.Close()
	f, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := f.Messages()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for m, err := rd.Next(); err == nil; m, err = rd.Next() {
		ids = append(ids, m.MessageId)
	}
	if strings.Join(ids, ",") != "a,b" || f.Count != 2 {
		t.Fatalf("read %v, count %d", ids, f.Count)
	}
}

// TestOriginalsKeepEachMessageOnce: the same DLQ message is kept again
// when its copy was not sent the first time — its send ran out of retries
// and it came back, its send was refused and a second run of the incident
// repairs it again, a FIFO group held back after its copies were kept.
// The file holds each original once, across batches and runs, so the undo
// (--from-file, which refuses a MessageId seen twice) still reads it: the
// file with a record twice was refused whole, "MessageId a again", and
// nothing could be put back.
func TestOriginalsKeepEachMessageOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "transform-originals.jsonl")
	o, err := OpenOriginals(path, dlqARN, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	a, b := sqsjson.Message{MessageId: "a", Body: "x"}, sqsjson.Message{MessageId: "b", Body: "y"}
	if err := o.Append([]sqsjson.Message{a, b}); err != nil {
		t.Fatal(err)
	}
	if err := o.Append([]sqsjson.Message{a}); err != nil {
		t.Fatal(err)
	}
	o.Close()
	o2, err := OpenOriginals(path, dlqARN, "run-2")
	if err != nil {
		t.Fatal(err)
	}
	if err := o2.Append([]sqsjson.Message{b, {MessageId: "c", Body: "z"}}); err != nil {
		t.Fatal(err)
	}
	o2.Close()
	var ids []string
	for _, m := range readOriginals(t, path) {
		ids = append(ids, m.MessageId)
	}
	if strings.Join(ids, ",") != "a,b,c" {
		t.Fatalf("the file holds %v, want a,b,c once each", ids)
	}
	f, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatalf("the undo cannot read the file: %v", err)
	}
	f.Close()
}
