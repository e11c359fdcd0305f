package classify

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/signature"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// GroupOf reads the incident's classification.json (and logs.json, whose
// signatures classify grouped by when it had them) and returns the group
// id of a live message, decided exactly as classify did: redrive's
// --group selects by it. The error names the fix: run classify first, or
// one of the groups there are.
func GroupOf(ws *incident.Workspace, group string) (func(*sqsjson.Message) string, error) {
	b, err := ws.ReadFile(incident.ClassificationFile)
	var c *Classification
	if err == nil {
		c, err = Parse(b, ws.Path(incident.ClassificationFile))
	}
	if err != nil {
		return nil, fmt.Errorf("--group %s: no readable %s in %s: run mfdlq classify first (%v)", group, incident.ClassificationFile, ws.Dir, err)
	}
	if _, ok := c.Group(group); !ok {
		ids := make([]string, 0, len(c.Groups))
		for _, g := range c.Groups {
			ids = append(ids, g.ID)
		}
		return nil, fmt.Errorf("--group %s: no such group in %s; groups: %s", group, incident.ClassificationFile, strings.Join(ids, ", "))
	}
	sigs := logSignatures(ws) // nil without a logs step: classify grouped by the message attributes
	return func(m *sqsjson.Message) string {
		if g, ok := c.GroupOf(m, sigs); ok {
			return g.ID
		}
		return ""
	}, nil
}

// logSignatures are the signatures of the messages logs.json found lines
// for, by logsearch's rule (signature.ByMessage), read here so that
// classify imports no other step; nil when there is no readable logs.json.
func logSignatures(ws *incident.Workspace) Signatures {
	b, err := ws.ReadFile(incident.LogsFile)
	if err != nil {
		return nil
	}
	var logs struct {
		Messages []signature.Logged `json:"messages"`
	}
	if json.Unmarshal(b, &logs) != nil {
		return nil
	}
	return signature.ByMessage(logs.Messages)
}
