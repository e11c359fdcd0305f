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
	c, err := Load(ws)
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
	sigs, _ := LogSignatures(ws) // nil without a logs step: classify grouped by the message attributes
	return func(m *sqsjson.Message) string {
		if g, ok := c.GroupOf(m, sigs); ok {
			return g.ID
		}
		return ""
	}, nil
}

// Load reads the incident's classification.json without following a
// link: classify's own artifact, for redrive's --group, a later classify's
// judgement, and the steps that spread their search by its groups.
func Load(ws *incident.Workspace) (*Classification, error) {
	b, err := ws.ReadFile(incident.ClassificationFile)
	if err != nil {
		return nil, err
	}
	return Parse(b, ws.Path(incident.ClassificationFile))
}

// LogSignatures are the signatures of the messages logs.json found lines
// for, by logsearch's rule (signature.ByMessage), read here so that
// classify imports no other step; logs.json is read without following a
// link. An error when there is no readable logs.json.
func LogSignatures(ws *incident.Workspace) (Signatures, error) {
	b, err := ws.ReadFile(incident.LogsFile)
	if err != nil {
		return nil, err
	}
	var logs struct {
		Messages []signature.Logged `json:"messages"`
	}
	if err := json.Unmarshal(b, &logs); err != nil {
		return nil, fmt.Errorf("%s: %w", ws.Path(incident.LogsFile), err)
	}
	return signature.ByMessage(logs.Messages), nil
}
