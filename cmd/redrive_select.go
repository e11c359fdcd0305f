package cmd

import (
	"strings"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// selector compiles the selection; --group reads the incident's
// classification.json.
func (o *redriveOptions) selector(ws *incident.Workspace) (func(*sqsjson.Message) (bool, error), error) {
	s := o.selection
	if s.Group != "" {
		of, err := groupOf(ws, s.Group)
		if err != nil {
			return nil, err
		}
		s.GroupOf = of
	}
	return s.Compile()
}

// groupOf reads the incident's classification.json (and logs.json, whose
// signatures classify grouped by when it had them) and returns the group id
// of a message, decided exactly as classify did.
func groupOf(ws *incident.Workspace, group string) (func(*sqsjson.Message) string, error) {
	c, err := loadClassification(ws)
	if err != nil {
		return nil, usageErrorf("--group %s: no readable %s in %s: run mfdlq classify first (%v)", group, incident.ClassificationFile, ws.Dir, err)
	}
	if _, ok := c.Group(group); !ok {
		ids := make([]string, 0, len(c.Groups))
		for _, g := range c.Groups {
			ids = append(ids, g.ID)
		}
		return nil, usageErrorf("--group %s: no such group in %s; groups: %s", group, incident.ClassificationFile, strings.Join(ids, ", "))
	}
	sigs, err := logSignatures(ws)
	if err != nil {
		sigs = nil // no logs step: classify grouped by the message attributes
	}
	return func(m *sqsjson.Message) string {
		if g, ok := c.GroupOf(m, sigs); ok {
			return g.ID
		}
		return ""
	}, nil
}
