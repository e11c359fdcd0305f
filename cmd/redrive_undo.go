package cmd

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/journal"
)

// undoFilter is the undo of a redrive --transform: a replay of its
// originals file puts back only the originals whose repaired copy left the
// DLQ. An original whose copy's send failed (a 4xx, retries run out) is
// still in the DLQ; putting it back would hold it twice. The transform
// run's journal sits beside the file, in its incident directory.
type undoFilter struct {
	unsent func(id string) bool // nil: not an originals file, or no journal
	left   int                  // originals kept back: their copy was never sent
	note   string               // a warning: no journal to tell them by
}

// newUndoFilter looks at the file's first record: only an originals file
// is filtered.
func newUndoFilter(f *archive.File, path string) (*undoFilter, error) {
	rd, err := f.Messages()
	if err != nil {
		return nil, err
	}
	m, err := rd.Next()
	if errors.Is(err, io.EOF) {
		return &undoFilter{}, nil
	}
	if err != nil {
		return nil, err
	}
	if _, ok := archive.OriginalOf(m); !ok {
		return &undoFilter{}, nil
	}
	jpath := filepath.Join(filepath.Dir(path), incident.JournalFile)
	sent, found := func(id string) bool { return true }, false
	if !strings.HasPrefix(path, "s3://") {
		if sent, found, err = journal.SentFrom(jpath); err != nil {
			return nil, fmt.Errorf("--from-file %s: the transform's journal: %w", path, err)
		}
	}
	if !found {
		return &undoFilter{note: fmt.Sprintf("undo: no redrive journal beside %s: every original is put back, also any whose repaired copy was never sent (it is still in the DLQ, and would be there twice)", path)}, nil
	}
	u := &undoFilter{}
	u.unsent = func(id string) bool {
		if sent(id) {
			return false
		}
		u.left++
		return true
	}
	return u, nil
}

// skip adds the unsent originals to what a replay already skips.
func (u *undoFilter) skip(delivered func(string) bool) func(string) bool {
	if u.unsent == nil {
		return delivered
	}
	return func(id string) bool { return delivered(id) || u.unsent(id) }
}

// line says how many originals stay in the file, once the source has
// been read; "" when none.
func (u *undoFilter) line() string {
	if u.left == 0 {
		return ""
	}
	return fmt.Sprintf("undo: %s left in the file: their repaired copy was never sent (the journal has no send), so they are still in the DLQ", plural.Of(u.left, "original"))
}
