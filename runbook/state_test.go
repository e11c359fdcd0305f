package runbook

import (
	"testing"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive"
)

func TestStateOfAndTheRedriveGuardrails(t *testing.T) {
	ev := func(step, verdict string) incident.Event { return incident.Event{Step: step, Verdict: verdict} }
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
