package journal

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

func keyHex(i int) string { return fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15|1) }

// The --key digests of the sends survive a compaction, per destination and
// attempt: a rerun of a --dedupe move, read from the compacted journal,
// knows every key moved, and one from an earlier attempt apart.
func TestKeysSurviveCompaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redrive-journal.jsonl")
	jw, st := openSmall(t, path, false)
	const n = 2000
	for i := range n {
		e := sentEntry(i)
		e.Key = keyHex(i)
		if err := jw.Write(e, deletedEntry(i)); err != nil {
			t.Fatal(err)
		}
	}
	if now, _ := st.KeySent("q", mustKey(t, keyHex(5))); !now {
		t.Fatal("in-run state does not know a key just sent")
	}
	l := closeCompacted(t, jw, path)
	for _, c := range []struct {
		attempt   int
		dest      string
		now, past bool
	}{{1, "q", true, false}, {2, "q", false, true}, {1, "other", false, false}} {
		s := &State{attempt: c.attempt, l: l}
		for _, i := range []int{0, 999, n - 1} {
			now, past := s.KeySent(c.dest, mustKey(t, keyHex(i)))
			if now != c.now || past != c.past {
				t.Fatalf("attempt %d, %s, key %d: sent now %v, before %v; want %v, %v", c.attempt, c.dest, i, now, past, c.now, c.past)
			}
		}
		if now, past := s.KeySent(c.dest, mustKey(t, keyHex(n+1))); now || past {
			t.Fatalf("a key never sent reads as sent")
		}
	}
}

func mustKey(t *testing.T, h string) uint64 {
	d, err := strconv.ParseUint(h, 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// BenchmarkKeysAtAMillion is the scale bar for --dedupe: the journal's
// fold of a move of 1,000,000 messages with distinct keys holds each key's
// digest in at most 24 bytes (the open-addressing set: 8 bytes a slot, at
// most three quarters full, doubling), beside what it holds already; it
// reports bytes/key and fails above 24:
// `go test -run XXX -bench KeysAtAMillion -benchtime 1x ./redrive/journal/`.
func BenchmarkKeysAtAMillion(b *testing.B) {
	t := b
	const n = 1_000_000
	fold := func(withKeys bool) uint64 {
		l := newLedger(false)
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		e := Entry{Time: time.Unix(1700000000, 0), Run: "r1", Attempt: 1, DestQueue: "q"}
		for i := range n {
			e.Op, e.DLQMessageID, e.DestMessageID = OpSent, "m-"+strconv.Itoa(i), "d-"+strconv.Itoa(i)
			if withKeys {
				e.Key = keyHex(i)
			}
			l.apply(e)
			e.Op, e.DestMessageID, e.Key = OpDeleted, "", ""
			l.apply(e)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(l)
		if withKeys && l.keys[setKey{"q", 1}].Len() != n {
			t.Fatalf("%d keys folded, want %d", l.keys[setKey{"q", 1}].Len(), n)
		}
		return after.HeapAlloc - before.HeapAlloc
	}
	without, with := fold(false), fold(true)
	perKey := float64(with-without) / n
	b.ReportMetric(perKey, "bytes/key")
	b.ReportMetric(float64(with)/(1<<20), "MiB/fold")
	t.Logf("journal fold of %d sends: %.1f MiB without keys, %.1f MiB with: %.1f bytes a key", n, float64(without)/(1<<20), float64(with)/(1<<20), perKey)
	if perKey > 24 {
		t.Fatalf("%.1f bytes a key, over 24", perKey)
	}
}
