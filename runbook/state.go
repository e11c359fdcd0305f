package runbook

import (
	"github.com/mfdlq/mfdlq/changes"
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/verify"
)

// State is where the incident stands, read from its events: the latest
// verdict of each step that has one. A step run twice counts by its latest
// event, as the report does.
type State struct {
	Contain  contain.Verdict  // "" when contain has not run
	Changes  changes.Verdict  // "" when changes has not run
	Classify classify.Verdict // "" when classify has not run
	Verify   verify.Verdict   // "" when verify has not run
	// Fixed tells that a fix is recorded after the latest classify: an
	// earlier fix answered an earlier verdict.
	Fixed bool
	// Redriven tells that a redrive ran in this incident.
	Redriven bool
}

// StateOf reads the incident's events, oldest first.
func StateOf(events []incident.Event) State {
	var s State
	for _, ev := range events {
		switch ev.Step {
		case StepContain:
			s.Contain = contain.Verdict(ev.Verdict)
		case StepChanges:
			s.Changes = changes.Verdict(ev.Verdict)
		case StepClassify:
			// A look that kept the incident's verdict (less evidence)
			// changed nothing: the fix still answers that verdict.
			var f classify.Figures
			if ev.DecodeFigures(&f) == nil && f.Judgement != nil && f.Judgement.Kept {
				continue
			}
			s.Classify, s.Fixed = classify.Verdict(ev.Verdict), false
		case StepFix:
			s.Fixed = true
		case StepRedrive:
			s.Redriven = true
		case StepVerify:
			s.Verify = verify.Verdict(ev.Verdict)
		}
	}
	return s
}

// BeforeRedrive is what redrive's guardrails weigh.
func (s State) BeforeRedrive() redrive.Before {
	return redrive.Before{Classify: s.Classify, Fixed: s.Fixed, Alive: s.Contain == contain.Alive}
}
