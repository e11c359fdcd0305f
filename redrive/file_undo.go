package redrive

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// UndoFilter is the undo of a redrive --transform: a replay of its
// originals file puts back only the originals that left the DLQ — those
// the transform run's journal has a 'deleted' for. One whose copy's send
// failed, whose delete failed, or that was copied with --keep is still in
// the DLQ; putting it back would hold it twice. The transform run's
// journal sits beside the file, in its incident directory.
type UndoFilter struct {
	unsent func(id string) bool // nil: not an originals file, or no journal
	// Left counts the originals kept back: they never left the DLQ.
	Left int
	// Note is a warning: no journal to tell them by ("": none).
	Note   string
	dlqARN string   // the DLQ the originals came from ("": not an originals file)
	sentTo []string // the queues (URLs) that got the repaired copies, per the journal
}

// NewUndoFilter looks at the file's first record: only an originals file
// is filtered.
func NewUndoFilter(f *archive.File, path string) (*UndoFilter, error) {
	rd, err := f.Messages()
	if err != nil {
		return nil, err
	}
	m, err := rd.Next()
	if errors.Is(err, io.EOF) {
		return &UndoFilter{}, nil
	}
	if err != nil {
		return nil, err
	}
	dlq, ok := archive.OriginalOf(m)
	if !ok {
		return &UndoFilter{}, nil
	}
	jpath := filepath.Join(filepath.Dir(path), incident.JournalFile)
	var j journal.Undo
	found := false
	if !strings.HasPrefix(path, "s3://") {
		if j, found, err = journal.ReadUndo(jpath); err != nil {
			return nil, fmt.Errorf("--from-file %s: the transform's journal: %w", path, err)
		}
	}
	if !found {
		return &UndoFilter{dlqARN: dlq, Note: fmt.Sprintf("undo: no redrive journal beside %s: every original is put back, also any that never left the DLQ (a copy never sent, a delete that failed, --keep: it would be there twice)", path)}, nil
	}
	u := &UndoFilter{dlqARN: dlq, sentTo: j.SentTo}
	u.unsent = func(id string) bool {
		if j.Deleted(id) {
			return false
		}
		u.Left++
		return true
	}
	return u, nil
}

// Skip adds the unsent originals to what a replay already skips.
func (u *UndoFilter) Skip(delivered func(string) bool) func(string) bool {
	if u.unsent == nil {
		return delivered
	}
	return func(id string) bool { return delivered(id) || u.unsent(id) }
}

// Line says how many originals stay in the file, once the source has
// been read; "" when none.
func (u *UndoFilter) Line() string {
	if u.Left == 0 {
		return ""
	}
	return fmt.Sprintf("undo: %s left in the file: the journal beside it has no delete of them (a copy never sent, a delete that failed, or --keep), so they are still in the DLQ", plural.Of(u.Left, "original"))
}

// OriginalsLine is the plan's line for an originals file replayed to the
// queue that got the repaired copies (as the journal beside it says; with
// no journal, any queue but the DLQ the originals came from): what it
// sends are the messages as they were before the repair. "" for an undo
// or a plain export.
func (u *UndoFilter) OriginalsLine(path string, dests []*sqsapi.Queue) string {
	if u.dlqARN == "" {
		return ""
	}
	for _, q := range dests {
		if u.unsent == nil && q.ARN != u.dlqARN || slices.Contains(u.sentTo, q.URL) {
			return fmt.Sprintf("plan: %s holds originals: the messages as they were before --transform repaired them, so they reach %s unrepaired (the undo sends them back to their DLQ, --to %s)",
				path, q.Name, sqsapi.NameFromARN(u.dlqARN))
		}
	}
	return ""
}
