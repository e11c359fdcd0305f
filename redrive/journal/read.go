package journal

import "github.com/mfdlq/mfdlq/incident"

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
