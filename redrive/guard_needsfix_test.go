package redrive

import (
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
)

// The fix-deployed gate applies to the groups whose verdict needs a fix —
// poison, data, mixed — by their group's verdict or, without
// classification.json, by the classify event's; transient groups pass.
func TestFirstFailureGatesWhatNeedsAFix(t *testing.T) {
	start := time.Date(2026, 11, 30, 21, 0, 0, 0, time.UTC)
	sent := start.Add(-time.Hour)
	events := []incident.Event{{Step: incident.StepClassify, Time: start}}
	needsFix := map[classify.Verdict]bool{classify.VerdictPoison: true, classify.VerdictData: true, classify.VerdictMixed: true, classify.VerdictTransient: false, classify.VerdictUnknown: false}
	for v, want := range needsFix {
		groups := []Group{{ID: "g1", Verdict: v, Count: 3, FirstSent: sent}, {ID: "g2", Verdict: classify.VerdictTransient, Count: 1, FirstSent: sent.Add(-time.Hour)}}
		first, gated, why := firstFailure(events, groups, "")
		if gated != want || (gated && !first.Equal(sent)) || (!gated && why == "") {
			t.Errorf("group %s: first %v, gated %v (%q); want gated %v at %v", v, first, gated, why, want, sent)
		}
		if v == classify.VerdictUnknown && why != "the groups to move are transient or unknown, and a recovered dependency is no deploy" {
			t.Errorf("unknown: why %q: want it to say an unknown group asks no deploy", why)
		}
		// Only the group asked for counts.
		if _, gated, _ := firstFailure(events, groups, "g2"); gated {
			t.Errorf("group %s: --group g2 (transient) gated", v)
		}
		// No classification.json: the classify event's verdict decides,
		// and the incident's first step stands in for the first failure.
		ev := []incident.Event{{Step: incident.StepClassify, Time: start, Verdict: string(v)}}
		first, gated, _ = firstFailure(ev, nil, "")
		if gated != want || (gated && !first.Equal(start)) {
			t.Errorf("event %s: first %v, gated %v; want gated %v at %v", v, first, gated, want, start)
		}
	}
}
