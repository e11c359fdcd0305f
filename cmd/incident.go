package cmd

import (
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
)

// loadClassification reads the incident's classification.json without
// following a link.
func loadClassification(ws *incident.Workspace) (*classify.Classification, error) {
	b, err := ws.ReadFile(incident.ClassificationFile)
	if err != nil {
		return nil, err
	}
	return classify.Parse(b, ws.Path(incident.ClassificationFile))
}
