package archive

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/internal/faultproxy"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// The SDK retries a PutObject whose answer was lost; the retry's
// If-None-Match meets the object the first attempt created and gets 412.
// The export knows its own upload by the token it set (metadata), reads it
// back and commits — where the old code said "created by someone else" of
// it and failed the export. An object someone else put there stays a
// refusal (TestS3CommitNeverOverwrites).
func TestS3CommitPutAnswerLostIsOurs(t *testing.T) {
	t.Parallel()
	_, bucket := testS3(t)
	p := faultproxy.New(localaws.Endpoint(t), 0, 1)
	srv := httptest.NewServer(p)
	defer srv.Close()
	c := s3.NewFromConfig(localaws.Config(t), func(o *s3.Options) {
		o.UsePathStyle, o.DisableLogOutputChecksumValidationSkipped = true, true
		o.BaseEndpoint = aws.String(srv.URL)
	})
	loc := S3Location{Bucket: bucket, Key: "dlq/orders.jsonl"}
	rule := p.Break(&faultproxy.Rule{Match: faultproxy.S3PutObject("/" + loc.Key), N: 1, Kind: faultproxy.DropAfter})
	sink, err := NewS3Sink(c, loc)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat(`{"MessageId":"a","Body":"x"}`+"\n", 3)
	sink.Write([]byte(body))
	got, err := sink.Commit(context.Background())
	if err != nil || got != loc.String() {
		t.Fatalf("commit after a lost PUT answer: %q, %v; want %s", got, err, loc)
	}
	if rule.Hits() != 1 {
		t.Fatalf("answers lost: %d, want 1", rule.Hits())
	}
	if b := objectBytes(t, c, loc); string(b) != body {
		t.Fatalf("object holds %q, want what was written", b)
	}
}

// A manifest that cannot be written stops the export before the part's
// messages are deleted: the part is not one a replay reads, so every
// message stays in the DLQ (visible at once) and the error names the
// unlisted object.
func TestExportManifestWriteFailsNothingDeleted(t *testing.T) {
	t.Parallel()
	const n = 25
	c, q, seed, _ := motoQueue(t, n, "")
	_, bucket := testS3(t)
	p := faultproxy.New(localaws.Endpoint(t), 0, 1)
	srv := httptest.NewServer(p)
	defer srv.Close()
	s3c := s3.NewFromConfig(localaws.Config(t), func(o *s3.Options) {
		o.UsePathStyle, o.DisableLogOutputChecksumValidationSkipped = true, true
		o.BaseEndpoint = aws.String(srv.URL)
	})
	loc := S3Location{Bucket: bucket, Key: "dlq/orders.jsonl"}
	p.Break(&faultproxy.Rule{Match: faultproxy.S3PutObject(".parts.json"), N: 1, Times: 100, Kind: faultproxy.ServerError})
	sink, err := NewS3PartsSink(s3c, loc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Export(context.Background(), c, sink, Options{Queue: q, Backlog: n, Delete: true, Wait: 1, Visibility: 30 * time.Second, InFlightLimit: 10})
	if err == nil || !strings.Contains(err.Error(), "write the parts manifest") || !strings.Contains(err.Error(), loc.String()+" was uploaded but is not listed, its messages stay in the DLQ") {
		t.Fatalf("export: %v; want the manifest failure naming the unlisted part", err)
	}
	if st.Deleted != 0 {
		t.Fatalf("deleted %d before the manifest listed their part", st.Deleted)
	}
	if left := dlqIDs(t, seed, q); len(left) != n {
		t.Fatalf("%d in the DLQ, want all %d", len(left), n)
	}
}
