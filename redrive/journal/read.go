package journal

import (
	"errors"
	"os"

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

// SentFrom reads the journal at path (a redrive's incident directory) and
// tells whether a DLQ message (by its MessageId) was sent anywhere, to any
// destination: the undo of a --transform puts back only the originals
// whose repaired copy left the DLQ. found is false when there is no
// journal at path.
func SentFrom(path string) (sent func(id string) bool, found bool, err error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	l, err := ReadLedger(path, true)
	if err != nil {
		return nil, false, err
	}
	open := newIDSet(len(l.open))
	for k := range l.open {
		open.add(digest(k.id))
	}
	return func(id string) bool {
		d := digest(id)
		if open.has(d) {
			return true
		}
		for _, set := range l.done {
			if set.has(d) {
				return true
			}
		}
		return false
	}, true, nil
}
