package archive

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// Without --delete an export holds what it reads, so at SQS's in-flight
// limit it stops — whichever way SQS says so — with the file holding what
// was read and every message made visible again; with --delete into a
// file it checkpoints there and drains the whole queue, never holding
// more than the limit.
func TestExportAtTheInFlightLimit(t *testing.T) {
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
	o := Options{Queue: &sqsapi.Queue{Depth: sqsapi.Depth{InFlight: 100}}, InFlightLimit: 300}
	if got := o.room(); got != 200 {
		t.Fatalf("room %d, want 200", got)
	}
	if got := (Options{}).room(); got != DefaultInFlightLimit {
		t.Fatalf("default room %d, want %d", got, DefaultInFlightLimit)
	}
}

// To S3 with --delete there is no checkpoint: at the limit the export
// stops, uploads and reads back that part, deletes exactly its messages and
// leaves the rest for the next run.
func TestExportS3DeleteStopsAtTheLimitWithOnePart(t *testing.T) {
	const n, limit = 45, 20
	c, bucket := testS3(t)
	sink, err := NewS3Sink(c, S3Location{Bucket: bucket, Key: "part-1.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	q := newMemQueue(n)
	q.limit = limit
	st, err := Export(context.Background(), q, sink, Options{Queue: &sqsapi.Queue{Name: "dlq", URL: "mem"}, Backlog: n, Delete: true, Wait: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st.Limit != LimitEmpty || st.Exported != limit || st.Deleted != limit || len(q.msgs) != n-limit || q.inFlight != 0 || q.maxHeld > limit {
		t.Fatalf("limit %q, exported %d, deleted %d, %d left, %d in flight, held at most %d; want %q, %d, %d, %d, 0, ≤%d",
			st.Limit, st.Exported, st.Deleted, len(q.msgs), q.inFlight, q.maxHeld, LimitEmpty, limit, limit, n-limit, limit)
	}
	if got := objectBytes(t, c, S3Location{Bucket: bucket, Key: "part-1.jsonl"}); strings.Count(string(got), "\n") != limit {
		t.Fatalf("the part holds %d lines, want %d", strings.Count(string(got), "\n"), limit)
	}
}
