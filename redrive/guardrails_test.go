package redrive

import (
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/incident"

	"github.com/mfdlq/mfdlq/classify"
)

func TestGuardrails(t *testing.T) {
	classified := func(v classify.Verdict) Before { return Before{Classify: v} }
	fixed := func(v classify.Verdict) Before { return Before{Classify: v, Fixed: true} }
	mixed := []Group{{ID: "g1", Verdict: classify.VerdictPoison, Count: 9}, {ID: "g2", Verdict: classify.VerdictTransient, Count: 1}}
	unknown := []Group{{ID: "g1", Verdict: classify.VerdictUnknown, Count: 340}}
	withUnknown := []Group{{ID: "g1", Verdict: classify.VerdictTransient, Count: 7}, {ID: "g2", Verdict: classify.VerdictUnknown, Count: 3}}
	for _, tt := range []struct {
		name string
		in   GuardInput
		want string // "" = no refusal
	}{
		{"poison without fix", GuardInput{Before: classified(classify.Verdict("poison"))}, "the latest classify says poison and no fix"},
		{"poison with fix", GuardInput{Before: fixed(classify.Verdict("poison"))}, ""},
		{"poison with --fixed", GuardInput{Before: classified(classify.Verdict("poison")), Fixed: "v2"}, ""},
		{"mixed names the other groups", GuardInput{Before: classified(classify.Verdict("mixed")), Groups: mixed}, "9 of 10 classified messages are in poison group g1 and no fix is recorded: fix the consumer and pass --fixed \"what changed\", or move the others alone with --group g2 (transient, 1)"},
		{"mixed, transient group", GuardInput{Before: classified(classify.Verdict("mixed")), Groups: mixed, Group: "g2"}, ""},
		{"mixed, poison group", GuardInput{Before: classified(classify.Verdict("mixed")), Groups: mixed, Group: "g1"}, "group g1 is poison and no fix"},
		{"mixed, fixed", GuardInput{Before: fixed(classify.Verdict("mixed")), Groups: mixed}, ""},
		{"mixed, groups unreadable", GuardInput{Before: classified(classify.Verdict("mixed"))}, "cannot be read"},
		{"transient", GuardInput{Before: classified(classify.Verdict("transient")), Groups: []Group{{ID: "g1", Verdict: classify.VerdictTransient, Count: 3}}}, ""},
		{"alive", GuardInput{Before: Before{Alive: true}}, "still alive"},
		// An unknown group is asked what poison is: a fix, or --group of
		// the proven groups.
		{"unknown without fix", GuardInput{Before: classified(classify.VerdictUnknown), Groups: unknown}, "the latest classify says unknown (no proof of what failed, only a timing clue) and no fix is recorded: prove what failed first (mfdlq logs, or classify again with --expect FIELD=VALUE or --baseline FILE), or pass --fixed \"what changed\", or --force"},
		{"unknown, groups unreadable", GuardInput{Before: classified(classify.VerdictUnknown)}, "the latest classify says unknown"},
		{"unknown with --fixed", GuardInput{Before: classified(classify.VerdictUnknown), Groups: unknown, Fixed: "ledger recovered"}, ""},
		{"unknown with a fix recorded", GuardInput{Before: fixed(classify.VerdictUnknown), Groups: unknown}, ""},
		{"mixed with an unknown group", GuardInput{Before: classified(classify.VerdictMixed), Groups: withUnknown}, "3 of 10 classified messages are in unknown group g2 and no fix is recorded: prove what failed first"},
		{"mixed, the proven group alone", GuardInput{Before: classified(classify.VerdictMixed), Groups: withUnknown, Group: "g1"}, ""},
		{"mixed, the unknown group", GuardInput{Before: classified(classify.VerdictMixed), Groups: withUnknown, Group: "g2"}, "group g2 is unknown"},
		{"poison and unknown", GuardInput{Before: classified(classify.VerdictMixed), Groups: []Group{{ID: "g1", Verdict: classify.VerdictPoison, Count: 5}, {ID: "g2", Verdict: classify.VerdictUnknown, Count: 3}, {ID: "g3", Verdict: classify.VerdictTransient, Count: 2}}}, "8 of 10 classified messages are in poison or unknown groups g1, g2"},
	} {
		r := Guardrails(tt.in)
		switch {
		case tt.want == "" && r != nil:
			t.Errorf("%s: refused: %s", tt.name, r.Reason)
		case tt.want != "" && (r == nil || !strings.Contains(r.Reason, tt.want)):
			t.Errorf("%s: got %v, want a refusal containing %q", tt.name, r, tt.want)
		}
	}
}

func TestAttempt(t *testing.T) {
	ev := func(steps ...string) []incident.Event {
		out := make([]incident.Event, len(steps))
		for i, s := range steps {
			out[i] = incident.Event{Step: s}
		}
		return out
	}
	for _, tt := range []struct {
		steps []string
		want  int
	}{
		{nil, 1},
		{[]string{"classify", "fix"}, 1},
		{[]string{"fix", "redrive"}, 1},
		{[]string{"fix", "redrive", "redrive"}, 1},
		{[]string{"fix", "redrive", "fix"}, 2},
		{[]string{"fix", "fix", "redrive", "fix", "redrive", "fix"}, 3},
	} {
		if got := Attempt(ev(tt.steps...)); got != tt.want {
			t.Errorf("Attempt(%v) = %d, want %d", tt.steps, got, tt.want)
		}
	}
}
