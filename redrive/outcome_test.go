package redrive

import (
	"testing"

	"github.com/mfdlq/mfdlq/redrive/canary"
	"github.com/mfdlq/mfdlq/redrive/mover"
)

// A canary's halt decides the outcome by its prefix: still in a
// destination is OutcomeCanaryStill, not proven OutcomeCanaryUnproven
// (both exit 3 in cmd).
func TestOutcomeOfCanaryHalt(t *testing.T) {
	for halt, want := range map[string]Outcome{
		canary.HaltStill + "the canary's 3 messages are still in orders": OutcomeCanaryStill,
		canary.HaltUnproven + "orders-dlq holds 4":                       OutcomeCanaryUnproven,
	} {
		s := &Summary{Stats: mover.Stats{Moved: 3, Halted: halt}, Moved: 3}
		if o := outcomeOf(s, false); o != want {
			t.Errorf("halt %q: outcome %s, want %s", halt, o, want)
		}
	}
}
