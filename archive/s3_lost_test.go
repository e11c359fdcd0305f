package archive

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

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
