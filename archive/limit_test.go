package archive

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// Without --delete an export holds what it reads, so at SQS's in-flight
// limit it stops — whichever way SQS says so — with the file holding what
// was read and every message made visible again; with --delete into a
// file it checkpoints there and drains the whole queue, never holding
// more than the limit.
func TestExportAtTheInFlightLimit(t *testing.T) {
	t.Parallel()
	const n, limit = 95, 30
	for _, tc := range []struct {
		name      string
		overLimit bool // the queue answers OverLimit, not empty
		known     int  // Options.InFlightLimit (0: the export does not know)
		delete    bool
		want      string // Stats.Limit
	}{
		{name: "empty receives", want: LimitEmpty},
		{name: "OverLimit", overLimit: true, want: LimitOverLimit},
		{name: "known limit", known: limit, want: LimitHeld},
		{name: "delete, empty receives", delete: true},
		{name: "delete, OverLimit", overLimit: true, delete: true},
		{name: "delete, known limit", known: limit, delete: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "dlq.jsonl.gz")
			sink, err := NewFileSink(out)
			if err != nil {
				t.Fatal(err)
			}
			q := newMemQueue(n)
			q.limit, q.overLimit = limit, tc.overLimit
			if !tc.delete {
				q.onDelete = func([]string) { t.Fatal("a delete without --delete") }
			}
			st, err := Export(context.Background(), q, sink, Options{Queue: &sqsapi.Queue{Name: "dlq", URL: "mem"}, Backlog: n,
				Delete: tc.delete, Gzip: true, Wait: 1, InFlightLimit: tc.known})
			if err != nil {
				t.Fatal(err)
			}
			if st.Limit != tc.want {
				t.Fatalf("stopped at the limit: %q, want %q (%+v)", st.Limit, tc.want, st)
			}
			if q.maxHeld > limit {
				t.Fatalf("held %d at once, over the limit %d", q.maxHeld, limit)
			}
			got := readIDs(t, out)
			if tc.delete {
				if st.Exported != n || st.Deleted != n || len(q.msgs) != 0 || len(got) != n {
					t.Fatalf("--delete: exported %d, deleted %d, %d left, file %d; want all %d", st.Exported, st.Deleted, len(q.msgs), len(got), n)
				}
				return
			}
			if st.Exported != limit || st.Held != limit || st.Released != limit || len(got) != limit || q.inFlight != 0 || len(q.msgs) != n {
				t.Fatalf("exported %d, held %d, released %d, file %d, in flight %d, queue %d; want %d, %d, %d, %d, 0, %d",
					st.Exported, st.Held, st.Released, len(got), q.inFlight, len(q.msgs), limit, limit, limit, limit, n)
			}
			if tc.want == LimitEmpty && st.VisibleLeft != n-limit {
				t.Fatalf("visible left %d, want %d", st.VisibleLeft, n-limit)
			}
		})
	}
}

// Messages others hold at the start count against the limit: the export
// stops at the room left.
func TestExportRoomLessOthersInFlight(t *testing.T) {
	t.Parallel()
	o := Options{Queue: &sqsapi.Queue{Depth: sqsapi.Depth{InFlight: 100}}, InFlightLimit: 300}
	if got := o.room(); got != 200 {
		t.Fatalf("room %d, want 200", got)
	}
	if got := (Options{}).room(); got != DefaultInFlightLimit {
		t.Fatalf("default room %d, want %d", got, DefaultInFlightLimit)
	}
}

// To S3 with --delete the export goes in parts: at the limit — known, or
// told by empty receives while messages stay visible — it completes the
// part (uploaded and read back), deletes exactly its messages and reads
// on, each part its own object (PartName); the DLQ ends empty, every
// message in exactly one part, never more than the limit held.
func TestExportS3DeleteGoesInParts(t *testing.T) {
	t.Parallel()
	const n, limit = 45, 20
	for _, tc := range []struct {
		name  string
		known int
	}{{name: "empty receives"}, {name: "known limit", known: limit}} {
		t.Run(tc.name, func(t *testing.T) {
			c, bucket := testS3(t)
			loc := S3Location{Bucket: bucket, Key: "dlq/orders.jsonl.gz"}
			sink, err := NewS3PartsSink(c, loc)
			if err != nil {
				t.Fatal(err)
			}
			q := newMemQueue(n)
			q.limit = limit
			// Every message deleted is already in a part read back from S3.
			durable := func(id string) bool {
				for _, p := range sink.(*s3Parts).parts {
					pl, _, _ := ParseS3(p.Location)
					if partIDs(t, c, pl)[id] == 1 {
						return true
					}
				}
				return false
			}
			q.onDelete = func(ids []string) {
				for _, id := range ids {
					if !durable(id) {
						t.Errorf("%s deleted before a part holding it was complete", id)
					}
				}
			}
			st, err := Export(context.Background(), q, sink, Options{Queue: &sqsapi.Queue{Name: "dlq", URL: "mem"}, Backlog: n,
				Delete: true, Gzip: true, Wait: 1, InFlightLimit: tc.known})
			if err != nil {
				t.Fatal(err)
			}
			if st.Limit != "" || st.Exported != n || st.Deleted != n || len(q.msgs) != 0 || q.inFlight != 0 || q.maxHeld > limit {
				t.Fatalf("limit %q, exported %d, deleted %d, %d left, %d in flight, held at most %d; want \"\", %d, %d, 0, 0, ≤%d",
					st.Limit, st.Exported, st.Deleted, len(q.msgs), q.inFlight, q.maxHeld, n, n, limit)
			}
			wantKeys := []string{"dlq/orders.jsonl.gz", "dlq/orders.part-0002.jsonl.gz", "dlq/orders.part-0003.jsonl.gz"}
			if len(st.Parts) != len(wantKeys) || st.Location != loc.String() {
				t.Fatalf("parts %+v at %s, want %d at %s", st.Parts, st.Location, len(wantKeys), loc)
			}
			seen := map[string]int{}
			var bytes int64
			for i, p := range st.Parts {
				want := S3Location{Bucket: bucket, Key: wantKeys[i]}
				if p.Location != want.String() || p.Messages != min(limit, n-i*limit) || p.Deleted != p.Messages {
					t.Fatalf("part %d: %+v, want %s with %d messages, all deleted", i+1, p, want, min(limit, n-i*limit))
				}
				// Each part is a whole gzip stream of its own.
				raw := objectBytes(t, c, want)
				if int64(len(raw)) != p.Bytes {
					t.Fatalf("part %d: %d bytes in S3, %d recorded", i+1, len(raw), p.Bytes)
				}
				bytes += p.Bytes
				ids := partIDs(t, c, want)
				if len(ids) != p.Messages {
					t.Fatalf("part %d holds %d messages, recorded %d", i+1, len(ids), p.Messages)
				}
				for id := range ids {
					seen[id]++
				}
			}
			for id, k := range seen {
				if k != 1 {
					t.Fatalf("%s in %d parts", id, k)
				}
			}
			if len(seen) != n || bytes != st.Bytes {
				t.Fatalf("%d messages across parts, %d bytes (stats %d); want %d", len(seen), bytes, st.Bytes, n)
			}
		})
	}
}

// partIDs counts the MessageIds of one gzipped part as S3 holds it.
func partIDs(t *testing.T, c *s3.Client, loc S3Location) map[string]int {
	t.Helper()
	file := filepath.Join(t.TempDir(), "part.jsonl.gz")
	if err := os.WriteFile(file, objectBytes(t, c, loc), 0o600); err != nil {
		t.Fatal(err)
	}
	return readIDs(t, file)
}

func TestPartName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		n    int
		want string
	}{
		{"orders.jsonl.gz", 1, "orders.jsonl.gz"},
		{"dlq/orders.jsonl.gz", 2, "dlq/orders.part-0002.jsonl.gz"},
		{"dlq/2026.12.01.jsonl", 12, "dlq/2026.12.01.part-0012.jsonl"},
		{"dlq/orders", 3, "dlq/orders.part-0003"},
		{"dlq/.gz", 2, "dlq/.gz.part-0002"},
		{"a.gz", 10000, "a.part-10000.gz"},
	} {
		if got := PartName(tc.name, tc.n); got != tc.want {
			t.Errorf("PartName(%q, %d) = %q, want %q", tc.name, tc.n, got, tc.want)
		}
	}
}

// Ctrl-C after a part: the part under way is not uploaded and its
// messages are made visible again, so every object holds only deleted
// messages; the parts done stay.
func TestExportS3PartsInterrupted(t *testing.T) {
	t.Parallel()
	const n, limit = 45, 20
	c, bucket := testS3(t)
	loc := S3Location{Bucket: bucket, Key: "orders.jsonl"}
	sink, err := NewS3PartsSink(c, loc)
	if err != nil {
		t.Fatal(err)
	}
	q := newMemQueue(n)
	q.limit = limit
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q.onDelete = func([]string) { cancel() } // Ctrl-C as the first part's messages go
	st, err := Export(ctx, q, sink, Options{Queue: &sqsapi.Queue{Name: "dlq", URL: "mem"}, Backlog: n, Delete: true, Wait: 1, InFlightLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Interrupted || st.Exported != limit || st.Deleted != limit || len(q.msgs) != n-limit || q.inFlight != 0 || st.Location != loc.String() {
		t.Fatalf("interrupted %v, exported %d, deleted %d, %d left, %d in flight, at %s; want true, %d, %d, %d, 0, %s",
			st.Interrupted, st.Exported, st.Deleted, len(q.msgs), q.inFlight, st.Location, limit, limit, n-limit, loc)
	}
	if got := objectBytes(t, c, loc); strings.Count(string(got), "\n") != limit {
		t.Fatalf("part 1 holds %d lines, want %d", strings.Count(string(got), "\n"), limit)
	}
	if _, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String(PartName(loc.Key, 2))}); err == nil {
		t.Fatal("part 2 was uploaded after Ctrl-C")
	}
}

// A part's key taken by someone else while the export runs stops it: the
// parts before stay, their messages deleted, the error names them, and
// the part under way is not deleted from the DLQ.
func TestExportS3PartKeyTaken(t *testing.T) {
	t.Parallel()
	const n, limit = 45, 20
	c, bucket := testS3(t)
	loc := S3Location{Bucket: bucket, Key: "orders.jsonl"}
	if _, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket, Key: aws.String(PartName(loc.Key, 2)), Body: strings.NewReader("theirs")}); err != nil {
		t.Fatal(err)
	}
	sink, err := NewS3PartsSink(c, loc)
	if err != nil {
		t.Fatal(err)
	}
	q := newMemQueue(n)
	q.limit = limit
	st, err := Export(context.Background(), q, sink, Options{Queue: &sqsapi.Queue{Name: "dlq", URL: "mem"}, Backlog: n, Delete: true, Wait: 1, InFlightLimit: limit})
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "deleted so far are in "+loc.String()) {
		t.Fatalf("err %v, want ErrExists naming %s", err, loc)
	}
	if st.Deleted != limit || len(q.msgs) != n-limit || q.inFlight != 0 {
		t.Fatalf("deleted %d, %d left, %d in flight; want %d, %d, 0", st.Deleted, len(q.msgs), q.inFlight, limit, n-limit)
	}
	if got := string(objectBytes(t, c, S3Location{Bucket: bucket, Key: PartName(loc.Key, 2)})); got != "theirs" {
		t.Fatalf("their object was replaced: %q", got)
	}
}

// --max bounds an export in parts: it stops once Max are written, the
// last part holding the rest of Max, the others left in the DLQ visible.
func TestExportS3PartsStopAtMax(t *testing.T) {
	t.Parallel()
	const n, limit, maxN = 45, 20, 30
	c, bucket := testS3(t)
	loc := S3Location{Bucket: bucket, Key: "orders.jsonl"}
	sink, err := NewS3PartsSink(c, loc)
	if err != nil {
		t.Fatal(err)
	}
	q := newMemQueue(n)
	q.limit = limit
	st, err := Export(context.Background(), q, sink, Options{Queue: &sqsapi.Queue{Name: "dlq", URL: "mem"}, Backlog: n, Max: maxN, Delete: true, Wait: 1, InFlightLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	if st.Exported != maxN || st.Deleted != maxN || len(q.msgs) != n-maxN || q.inFlight != 0 || len(st.Parts) != 2 ||
		st.Parts[0].Messages != limit || st.Parts[1].Messages != maxN-limit {
		t.Fatalf("exported %d, deleted %d, %d left, %d in flight, parts %+v; want %d, %d, %d, 0, parts of %d and %d",
			st.Exported, st.Deleted, len(q.msgs), q.inFlight, st.Parts, maxN, maxN, n-maxN, limit, maxN-limit)
	}
}
