package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// motoQueue is a moto queue holding n messages, with the client that
// reaches it (front: an endpoint in front of moto, "" for moto itself).
// The client retries as mfdlq's does (sqsapi.MaxAttempts) but without the
// SDK's backoff between attempts (localaws.NoBackoff).
func motoQueue(t *testing.T, n int, front string) (*sqs.Client, *sqsapi.Queue, *localaws.Seeder, []string) {
	t.Helper()
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	url, err := seed.CreateQueue(ctx, localaws.UniqueName("export"), nil)
	if err != nil {
		t.Fatal(err)
	}
	bodies := make([]string, n)
	for i := range bodies {
		bodies[i] = fmt.Sprintf(`{"n":%d}`, i)
	}
	ids, err := seed.SendIDs(ctx, url, bodies, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sqsapi.New(cfg, func(o *sqs.Options) {
		o.Retryer = localaws.NoBackoff(retry.NewStandard())
		if front != "" {
			o.BaseEndpoint = aws.String(front)
		}
	})
	q, err := sqsapi.Resolve(ctx, c, url, "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	return c, q, seed, ids
}

// dlqIDs checks that nothing is left in flight and returns the
// MessageIds visible in the queue (draining it). With nothing in flight
// moto's count of visible messages is exact, so it receives until it has
// that many: no empty long poll at the end, as Seeder.Drain waits for two
// of (two seconds).
func dlqIDs(t *testing.T, seed *localaws.Seeder, q *sqsapi.Queue) map[string]int {
	t.Helper()
	ctx := context.Background()
	visible, inFlight, err := seed.Depth(ctx, q.URL)
	if err != nil || inFlight != 0 {
		t.Fatalf("%d in flight after the export (%v): every message it read must be visible again at once", inFlight, err)
	}
	ids := map[string]int{}
	for got := 0; got < visible; {
		// Deleted as it goes: a FIFO group shows its next ten only then.
		out, err := seed.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL), MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 30})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			t.Fatalf("the DLQ showed %d visible, a receive after %d of them found none", visible, got)
		}
		var del []types.DeleteMessageBatchRequestEntry
		for i, m := range out.Messages {
			ids[aws.ToString(m.MessageId)]++
			del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
		}
		if _, err := seed.SQS.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: del}); err != nil {
			t.Fatal(err)
		}
		got += len(out.Messages)
	}
	return ids
}

// An export with --delete into a local file deletes at checkpoints, so
// when its final commit fails the file holds the only copy of those
// messages. For each way a commit fails — the name taken by a file, a
// symlink or a directory while the export read, the final fsync failing
// (a full disk), the directory removed before the last link or between
// two checkpoints — every message is either in the DLQ (visible at once)
// or in a file that exists and that the error names with its count, and
// none is in both.
func TestExportDeleteFailedCommitKeepsDeleted(t *testing.T) {
	t.Parallel()
	const n = 25
	for _, tc := range []struct {
		name string
		// fault breaks the commit; after says when: once a checkpoint has
		// deleted (mid) or once every message was read (end).
		fault func(t *testing.T, out string, sink *fileSink)
		end   bool
	}{
		{name: "name taken by a file", fault: func(t *testing.T, out string, _ *fileSink) { write(t, out, "theirs") }},
		{name: "name taken by a symlink", fault: func(t *testing.T, out string, _ *fileSink) {
			if err := os.Symlink(filepath.Join(filepath.Dir(out), "victim"), out); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "name taken by a directory", fault: func(t *testing.T, out string, _ *fileSink) {
			if err := os.Mkdir(out, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "final sync fails", end: true, fault: func(_ *testing.T, _ string, s *fileSink) {
			s.syncFile = func(*os.File) error { return errors.New("no space left on device") }
		}},
		{name: "directory removed before the link", end: true, fault: func(t *testing.T, out string, _ *fileSink) {
			if err := os.RemoveAll(filepath.Dir(out)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "directory removed between checkpoints", fault: func(t *testing.T, out string, _ *fileSink) {
			if err := os.RemoveAll(filepath.Dir(out)); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, q, seed, all := motoQueue(t, n, "")
			dir := filepath.Join(t.TempDir(), "out")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			rescue := t.TempDir()
			out := filepath.Join(dir, "dlq.jsonl.gz")
			sink, err := NewFileSink(out)
			if err != nil {
				t.Fatal(err)
			}
			fired := false
			progress := func(st Stats) {
				if !fired && ((tc.end && st.Received == n) || (!tc.end && st.Deleted > 0)) {
					fired = true
					tc.fault(t, out, sink.(*fileSink))
				}
			}
			st, err := Export(context.Background(), c, sink, Options{Queue: q, Backlog: n, Delete: true, Gzip: true, Wait: 1,
				Checkpoint: 10, Visibility: 30 * time.Second, RescueDir: rescue, Progress: progress})
			if !fired || err == nil {
				t.Fatalf("fault fired %v, export error %v: want a failed export", fired, err)
			}
			if st.Deleted == 0 || st.Kept == "" {
				t.Fatalf("deleted %d, kept %q: want messages deleted at a checkpoint and the file holding them named", st.Deleted, st.Kept)
			}
			if want := fmt.Sprintf("the %d messages deleted so far are in %s", st.Deleted, st.Kept); !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q does not say %q", err, want)
			}
			if fi, err := os.Lstat(st.Kept); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
				t.Fatalf("kept file %s: %v, %v; want a regular 0600 file", st.Kept, fi, err)
			}
			kept := readIDs(t, st.Kept)
			left := dlqIDs(t, seed, q)
			if len(kept) != st.Deleted {
				t.Errorf("kept file holds %d messages, %d were deleted", len(kept), st.Deleted)
			}
			for _, id := range all {
				if kept[id]+left[id] != 1 {
					t.Errorf("%s: %d times in %s, %d in the DLQ; want exactly once in one of them", id, kept[id], st.Kept, left[id])
				}
			}
		})
	}
}

func write(t *testing.T, name, s string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
