package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// fifoQueue is a moto FIFO queue of n messages in one group.
func fifoQueue(t *testing.T, n int) (*sqs.Client, *sqsapi.Queue, *localaws.Seeder, []string) {
	t.Helper()
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	url, err := seed.CreateQueue(ctx, localaws.UniqueName("fifo")+".fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"})
	if err != nil {
		t.Fatal(err)
	}
	c := sqsapi.New(cfg)
	var ids []string
	for start := 0; start < n; start += 10 {
		var entries []types.SendMessageBatchRequestEntry
		for i := start; i < min(start+10, n); i++ {
			entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(fmt.Sprintf(`{"n":%d}`, i)), MessageGroupId: aws.String("g")})
		}
		out, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
		if err != nil {
			t.Fatal(err)
		}
		for _, ok := range out.Successful {
			ids = append(ids, aws.ToString(ok.MessageId))
		}
	}
	q, err := sqsapi.Resolve(ctx, c, url, "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	return c, q, seed, ids
}

// On a FIFO DLQ of one message group, SQS hands out ten messages and then
// nothing of the group until they are deleted. An export with --delete to
// S3 stages its part in the incident directory, fsyncs it and deletes at
// each such stall, and cuts parts by count (Checkpoint) — not a part every
// ten messages, as the old code did (4 parts of 10, 10, 10 and 5 here).
// Every message lands in exactly one part, the DLQ ends empty and the
// staging directory is gone.
func TestExportFIFOToS3CutsPartsByCount(t *testing.T) {
	t.Parallel()
	const n = 35
	ctx := context.Background()
	c, q, seed, _ := fifoQueue(t, n)
	s3c, bucket := testS3(t)
	loc := S3Location{Bucket: bucket, Key: "dlq/orders.jsonl.gz"}
	sink, err := NewS3PartsSink(s3c, loc)
	if err != nil {
		t.Fatal(err)
	}
	stage := t.TempDir()
	st, err := Export(ctx, localaws.ShortPolls{Client: c}, sink, Options{Queue: q, Backlog: n, Delete: true, Gzip: true, Wait: 1, Visibility: 30 * time.Second,
		Checkpoint: 20, RescueDir: stage})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Parts) != 2 || st.Parts[0].Messages != 20 || st.Parts[1].Messages != 15 || st.Deleted != n ||
		st.Parts[0].Deleted != 20 || st.Parts[1].Deleted != 15 {
		t.Fatalf("parts %+v, deleted %d; want parts of 20 and 15, all %d deleted", st.Parts, st.Deleted, n)
	}
	f, err := Open(ctx, loc.String(), func(context.Context) (S3, error) { return s3c, nil })
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Count != n {
		t.Fatalf("replay reads %d, want %d", f.Count, n)
	}
	if left := dlqIDs(t, seed, q); len(left) != 0 {
		t.Fatalf("%d left in the DLQ", len(left))
	}
	if entries, _ := os.ReadDir(stage); len(entries) != 0 {
		t.Fatalf("staging left behind: %v", entries)
	}
}

// When the upload of a staged part fails (its key taken meanwhile), the
// staged file — which holds messages deleted at its checkpoints — is kept,
// cut back to its last checkpoint, and named with its count; every message
// is in it or visible in the DLQ, none in both.
func TestExportFIFOStagedPartKeptWhenUploadFails(t *testing.T) {
	t.Parallel()
	const n = 35
	ctx := context.Background()
	c, q, seed, all := fifoQueue(t, n)
	s3c, bucket := testS3(t)
	loc := S3Location{Bucket: bucket, Key: "dlq/orders.jsonl.gz"}
	sink, err := NewS3PartsSink(s3c, loc)
	if err != nil {
		t.Fatal(err)
	}
	// Another operator's export takes the key after the check.
	put(t, s3c, bucket, loc.Key, []byte("theirs"))
	st, err := Export(ctx, localaws.ShortPolls{Client: c}, sink, Options{Queue: q, Backlog: n, Delete: true, Gzip: true, Wait: 1, Visibility: 30 * time.Second,
		Checkpoint: 20, RescueDir: t.TempDir()})
	if !errors.Is(err, ErrExists) || st.Deleted == 0 || !strings.Contains(err.Error(), fmt.Sprintf("the %d messages deleted so far are in ", st.Deleted)) {
		t.Fatalf("export: %v (deleted %d); want ErrExists naming where the deleted are", err, st.Deleted)
	}
	kept := strings.TrimSuffix(st.Kept, " (staged, fsynced before its messages were deleted)")
	if !strings.Contains(err.Error(), kept) {
		t.Fatalf("error %q does not name %s", err, kept)
	}
	got := readIDs(t, kept)
	left := dlqIDs(t, seed, q)
	if len(got) != st.Deleted {
		t.Fatalf("kept file holds %d, %d were deleted", len(got), st.Deleted)
	}
	for _, id := range all {
		if got[id]+left[id] != 1 {
			t.Errorf("%s: %d in %s, %d in the DLQ; want exactly once", id, got[id], kept, left[id])
		}
	}
}
