package journal

import (
	"errors"
	"os"
	"sort"

	"github.com/mfdlq/mfdlq/incident"
)

// Delivered reads the incident's journal and tells whether a message (by
// its MessageId) was already sent to destURL and deleted: a rerun of a
// move from a file skips it.
func Delivered(ws *incident.Workspace, destURL string) (func(id string) bool, error) {
	state, err := readState(ws.Path(incident.JournalFile), true)
	if err != nil {
		return nil, err
	}
	return func(id string) bool { return state.Of(id, destURL).Op == OpDeleted }, nil
}

// Undo is what a --transform run's journal tells its undo.
type Undo struct {
	// Deleted tells whether a DLQ message (by its MessageId) was deleted
	// from the DLQ, whatever its destination: the undo puts back only the
	// originals that left the DLQ. A 'sent' alone is not gone — a copy
	// sent with --keep, or whose delete failed, leaves the original in
	// the DLQ, and putting it back would hold it twice.
	Deleted func(id string) bool
	// SentTo are the destinations (queue URLs) that got the run's copies:
	// a replay of the originals there sends them unrepaired.
	SentTo []string
}

// ReadUndo reads the journal at path (a redrive's incident directory)
// for the undo of its --transform. found is false when there is no
// journal at path.
func ReadUndo(path string) (u Undo, found bool, err error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return u, false, nil
	}
	l, err := ReadLedger(path, true)
	if err != nil {
		return u, false, err
	}
	u.Deleted = func(id string) bool {
		d := digest(id)
		for _, set := range l.done {
			if set.has(d) {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	for k, n := range l.counts {
		if k.op == OpSent && n > 0 && k.dest != "" && !seen[k.dest] {
			seen[k.dest] = true
			u.SentTo = append(u.SentTo, k.dest)
		}
	}
	sort.Strings(u.SentTo)
	return u, true, nil
}
