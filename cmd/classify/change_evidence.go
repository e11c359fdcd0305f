package classify

import (
	"github.com/mfdlq/mfdlq/changes"
	classifystep "github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
)

// addChangeEvidence adds the nearest change (or a dependency's alarm) that
// changes.json names to classify's evidence. It is evidence beside the
// content, never a vote: the verdict stays what the messages say, and a
// contract change seen in them outweighs a dependency's alarm.
func addChangeEvidence(ws *incident.Workspace, res *classifystep.Classification) {
	var c changes.Result
	if ws == nil || ws.ReadJSON(incident.ChangesFile, &c) != nil || c.Evidence == "" {
		return
	}
	line := "changes: " + c.Evidence
	if c.Verdict == changes.VerdictAlarm && res.Verdict.NeedsFix() {
		line += "; the content says " + string(res.Verdict) + ", which outweighs an alarm"
	}
	res.Evidence = append(res.Evidence, line)
}
