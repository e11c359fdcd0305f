package archive

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/internal/faultproxy"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// behindProxy is a faultproxy in front of moto, with no random faults.
func behindProxy(t *testing.T) (*faultproxy.Proxy, string) {
	t.Helper()
	p := faultproxy.New(localaws.Endpoint(t), 0, 1)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

// A receive that SQS carried out and whose answer was lost hid messages
// the export never saw. Whether the caller sees the error (every attempt's
// answer lost) or the SDK's retry hides it (one lost), the export does not
// end "done" while they are away: it waits out the visibility it asked
// for, looks again, and exports every message — and every one is visible
// again at the end. On the old code the first failed with them hidden and
// the second ended ok with 10 fewer in the file.
func TestExportLostReceiveAnswerWaitsAndLooksAgain(t *testing.T) {
	t.Parallel()
	const n = 25
	for _, tc := range []struct {
		name  string
		times int
	}{{"the caller sees the error", sqsapi.MaxAttempts}, {"the SDK's retry hides it", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each its own proxy and queue
			proxy, front := behindProxy(t)
			c, q, seed, all := motoQueue(t, n, front)
			rule := proxy.Break(&faultproxy.Rule{Match: faultproxy.SQSAction("ReceiveMessage"), N: 2, Times: tc.times, Kind: faultproxy.DropAfter})
			out := filepath.Join(t.TempDir(), "dlq.jsonl.gz")
			sink, err := NewFileSink(out)
			if err != nil {
				t.Fatal(err)
			}
			waited := 0
			// The wait itself is proven on the export's clock
			// (TestExportWaitsForALostReceiveOnItsClock); here the proof is
			// the file, through the SDK and moto, whose visibility timeout
			// runs on the wall clock: 2 s, the shortest that the export's
			// renewal (every second at the least) still keeps its own
			// messages hidden under, waited out plus receipts.Margin. Short
			// polls make the quiet rounds take no time, so the batch is
			// still hidden when the export looks again, unless the machine
			// is loaded enough to outlast the visibility: no wait then.
			st, err := Export(context.Background(), localaws.ShortPolls{Client: c}, sink, Options{Queue: q, Backlog: n, Gzip: true, Wait: 1, Visibility: 2 * time.Second,
				Waiting: func(hidden int, until time.Time) { waited++ }})
			if err != nil {
				t.Fatalf("export: %v", err)
			}
			// The file below is the proof: an export that ended without
			// waiting for the hidden batch lacks its 10 messages. A wait is
			// expected, but a machine slow enough to outlast the visibility
			// finds the batch back without one.
			if rule.Hits() != tc.times || waited > 1 {
				t.Fatalf("answers lost %d, waits %d; want %d and 1", rule.Hits(), waited, tc.times)
			}
			if waited == 0 {
				t.Logf("the hidden batch was back before the export looked again: no wait needed")
			}
			got := readIDs(t, out)
			for _, id := range all {
				if got[id] != 1 {
					t.Errorf("%s: %d times in the file, want 1", id, got[id])
				}
			}
			if st.Exported != n || st.Hidden != 0 {
				t.Fatalf("exported %d, hidden %d; want %d and 0", st.Exported, st.Hidden, n)
			}
			if left := dlqIDs(t, seed, q); len(left) != n {
				t.Fatalf("%d visible in the DLQ after the export, want %d", len(left), n)
			}
		})
	}
}

// When every receive after the first loses its answer, the export fails —
// and says how many messages may still be hidden and when they are back,
// having made visible again at once every message it did see.
func TestExportFailedReceivesSayWhatIsHidden(t *testing.T) {
	t.Parallel()
	const n = 25
	proxy, front := behindProxy(t)
	c, q, seed, _ := motoQueue(t, n, front)
	proxy.Break(&faultproxy.Rule{Match: faultproxy.SQSAction("ReceiveMessage"), N: 2, Times: 1000, Kind: faultproxy.ServerErrAfter})
	sink, err := NewFileSink(filepath.Join(t.TempDir(), "dlq.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// moto's visibility timeout runs on the wall clock and the test waits
	// it out (the time the export names must be true): 2 s, short enough
	// to wait, long enough that the 10 messages seen are visible at the
	// end only because the export released them. The SDK retries each
	// receive without its backoff (motoQueue), and moto's long poll of
	// the emptied queue would wait its second each attempt (ShortPolls).
	const visibility = 2 * time.Second
	start := time.Now()
	st, err := Export(context.Background(), localaws.ShortPolls{Client: c}, sink, Options{Queue: q, Backlog: n, Wait: 1, Visibility: visibility})
	if err == nil {
		t.Fatal("export ended ok while every receive failed")
	}
	if st.Hidden != n-10 || st.HiddenUntil.Before(start.Add(visibility)) || st.HiddenUntil.After(time.Now().Add(visibility+2*time.Second)) {
		t.Fatalf("hidden %d until %s; want %d within the visibility of the last failed receive", st.Hidden, st.HiddenUntil, n-10)
	}
	if st.Released != 10 || st.NotReleased != 0 {
		t.Fatalf("released %d, not released %d; want the 10 seen, all confirmed", st.Released, st.NotReleased)
	}
	visible, _, err := seed.Depth(context.Background(), q.URL)
	if err != nil || visible < 10 {
		t.Fatalf("%d visible right after the failed export (%v): the 10 it saw must be visible at once", visible, err)
	}
	if time.Since(start) >= visibility {
		t.Logf("the export took %s, longer than the visibility: the check above proves less", time.Since(start))
	}
	time.Sleep(time.Until(st.HiddenUntil))
	if left := dlqIDs(t, seed, q); len(left) != n {
		t.Fatalf("%d in the DLQ at the time the export named, want %d", len(left), n)
	}
}
