package mover

import (
	"path/filepath"
	"testing"

	"github.com/mfdlq/mfdlq/redrive/journal"
)

// stateOf is the State a run of attempt n opens on a journal holding
// entries (journal.Open, the entries written through its Writer): the
// fold a mover's test starts from.
func stateOf(t *testing.T, n int, entries ...journal.Entry) *journal.State {
	t.Helper()
	w, st, err := journal.Open(filepath.Join(t.TempDir(), "redrive-journal.jsonl"), n, true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(entries...); err != nil {
		t.Fatal(err)
	}
	return st
}
