package journal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A second Open of a journal another writer holds is refused before it
// mends anything (the first writer's unfinished last line stays as it is,
// its compaction file stays), and a journal whose writer closed opens.
func TestOpenRefusesAJournalInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redrive-journal.jsonl")
	w, _, err := Open(path, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(Entry{Time: time.Unix(0, 0).UTC(), Run: "r1", Op: OpRun}); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	// What the first writer has on disk mid-way: a line not ended yet and
	// a compaction being written.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"op":"sent","id":"m1"`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.WriteFile(path+".compact", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)

	if _, _, err := Open(path, 1, false); !errors.Is(err, ErrInUse) {
		t.Fatalf("a second Open while the first is open: %v, want ErrInUse", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatalf("the refused Open changed the journal:\n%q\nwas\n%q", after, before)
	}
	if _, err := os.Stat(path + ".compact"); err != nil {
		t.Fatalf("the refused Open removed the writer's compaction file: %v", err)
	}
	os.Remove(path + ".compact")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2, _, err := Open(path, 1, false)
	if err != nil {
		t.Fatalf("Open after the writer closed: %v", err)
	}
	w2.Close()
}
