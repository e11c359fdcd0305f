package cmdutil

import (
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/logsearch"
)

// LogSignatures reads the logs step's signatures, by MessageId, for
// classify to group by; logs.json is read without following a link.
func LogSignatures(ws *incident.Workspace) (classify.Signatures, error) {
	b, err := ws.ReadFile(incident.LogsFile)
	if err != nil {
		return nil, err
	}
	rep, err := logsearch.Parse(b, ws.Path(incident.LogsFile))
	if err != nil {
		return nil, err
	}
	return rep.Signatures(), nil
}
