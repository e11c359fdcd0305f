package runbook

import (
	"testing"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive"
)

func TestStateOfAndTheRedriveGuardrails(t *testing.T) {
	ev := func(step, verdict string) incident.Event { return incident.Event{Step: step, Verdict: verdict} }
	kept := func(verdict string) incident.Event {
		e := ev("classify", verdict)
		if err := e.SetFigures(classify.Figures{Judgement: &classify.Judgement{Kept: true, Verdict: classify.Verdict(verdict)}}); err != nil {
			t.Fatal(err)
		}
		return e
	}
	tests := []struct {
		name    string
		events  []incident.Event
		fixed   string
		refused bool
	}{
		{"nothing run", nil, "", false},
		{"poison, no fix", []incident.Event{ev("classify", "poison")}, "", true},
		{"poison, fix recorded", []incident.Event{ev("classify", "poison"), ev("fix", "")}, "", false},
		{"poison, --fixed now", []incident.Event{ev("classify", "poison")}, "consumer 1.8.0", false},
		// A fix answers the verdict before it, not one that came after.
		{"fix, then poison again", []incident.Event{ev("classify", "poison"), ev("fix", ""), ev("classify", "poison")}, "", true},
		// A later look that kept the verdict (browse's, a bare classify)
		// does not undo the fix: only evidence changes the verdict.
		{"fix, then a look that kept the verdict", []incident.Event{ev("classify", "poison"), ev("fix", ""), kept("poison")}, "", false},
		{"transient", []incident.Event{ev("classify", "transient")}, "", false},
		{"alive", []incident.Event{ev("contain", "alive"), ev("classify", "transient")}, "", true},
		{"alive, then not", []incident.Event{ev("contain", "alive"), ev("contain", "not_alive")}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := redrive.Guardrails(redrive.GuardInput{Before: StateOf(tt.events).BeforeRedrive(), Fixed: tt.fixed})
			if (r != nil) != tt.refused {
				t.Errorf("refusal = %v, want refused %v", r, tt.refused)
			}
		})
	}
}
