package classify

import "testing"

// NeedsFix is the one list of verdicts that must wait for a fix: redrive's
// guardrail and fix-deployed gate and the runbook's fork all ask it.
func TestNeedsFix(t *testing.T) {
	want := map[Verdict]bool{
		VerdictPoison: true, VerdictData: true, VerdictMixed: true,
		VerdictTransient: false, VerdictUnknown: false, "": false,
	}
	for v, w := range want {
		if got := v.NeedsFix(); got != w {
			t.Errorf("%q.NeedsFix() = %v, want %v", v, got, w)
		}
	}
}
