package journal

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// FirstPayloadSent is the attempt's earliest payload send, in the run and
// read back from a compacted journal: IsReturn hashes no message that
// reached the DLQ before it.
func TestFirstPayloadSentSurvivesCompaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redrive-journal.jsonl")
	jw, st := openSmall(t, path, false)
	if _, ok := st.FirstPayloadSent(); ok {
		t.Fatal("a journal without payload sends has a first one")
	}
	const n = 2000
	base := time.Unix(1700000000, 0).UTC()
	for i := range n {
		e := sentEntry(i)
		e.Time = base.Add(time.Duration(n-i) * time.Millisecond) // the earliest is the last written
		e.PayloadSHA256 = fmt.Sprintf("%064x", i+1)
		if err := jw.Write(e, deletedEntry(i)); err != nil {
			t.Fatal(err)
		}
	}
	want := base.Add(time.Millisecond)
	if got, ok := st.FirstPayloadSent(); !ok || !got.Equal(want) {
		t.Fatalf("in the run: %v %v, want %v", got, ok, want)
	}
	l := closeCompacted(t, jw, path)
	for _, c := range []struct {
		attempt int
		ok      bool
	}{{1, true}, {0, true}, {2, false}} {
		got, ok := (&State{attempt: c.attempt, l: l}).FirstPayloadSent()
		if ok != c.ok || ok && !got.Equal(want) {
			t.Errorf("attempt %d, read back: %v %v, want %v %v", c.attempt, got, ok, want, c.ok)
		}
	}
}

// closeCompacted closes jw and reads its journal at path back, which
// must have been compacted.
func closeCompacted(t *testing.T, jw *Writer, path string) *Ledger {
	t.Helper()
	if err := jw.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := ReadLedger(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Compacted() {
		t.Fatal("not compacted")
	}
	return l
}
