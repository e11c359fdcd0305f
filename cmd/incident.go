package cmd

import (
	"errors"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// checkIncident validates the incident directory a command about queueRef
// will write into, before any AWS call: a symlinked, foreign, shared or
// non-directory --incident is a usage error (exit 2) and nothing changes.
// The directory's default name needs only the queue's name, which a name,
// URL or ARN gives without asking AWS. The choice is not said here: the
// step says it when it opens the directory, after its own checks.
func (d *Deps) checkIncident(queueRef string) error {
	if raw, ok := d.incidentURL(); ok {
		return d.checkS3Incident(raw)
	}
	dir, _, err := d.chooseIncident(sqsapi.NameOf(queueRef))
	if err != nil {
		return err
	}
	return incidentError(incident.Check(dir))
}

// incidentError turns an unsafe incident directory into a usage error.
func incidentError(err error) error {
	var unsafe *incident.UnsafeDirError
	if errors.As(err, &unsafe) {
		return usageErrorf("%v", unsafe)
	}
	return err
}

// loadClassification reads the incident's classification.json without
// following a link.
func loadClassification(ws *incident.Workspace) (*classify.Classification, error) {
	b, err := ws.ReadFile(incident.ClassificationFile)
	if err != nil {
		return nil, err
	}
	return classify.Parse(b, ws.Path(incident.ClassificationFile))
}
