package classify

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// look builds a classification with the evidence a test names: expect and
// baseline as flags, logs as the groups' signature source, n messages of
// inDLQ, and the groups' verdicts in order (g1, g2 …, counts split evenly).
func look(expect, baseline, logs bool, n, inDLQ int, verdicts ...Verdict) *Classification {
	c := &Classification{Messages: n, Look: &Look{Sampled: n, InDLQ: inDLQ}}
	if expect {
		c.Expect = []string{"version=1"}
	}
	if baseline {
		c.Baseline = &Summary{Messages: 50}
	}
	for i, v := range verdicts {
		g := Group{ID: "g" + string(rune('1'+i)), Key: "k" + string(rune('1'+i)), Verdict: v, Count: n / len(verdicts), SignatureSource: "none"}
		if logs {
			g.SignatureSource = "logs"
		}
		c.Groups = append(c.Groups, g)
	}
	c.Verdict = verdicts[0]
	if len(verdicts) > 1 {
		c.Verdict = VerdictMixed
	}
	return c
}

// withSignature gives every group of c an error signature from its
// attributes: a verdict an error proves.
func withSignature(c *Classification) *Classification {
	for i := range c.Groups {
		c.Groups[i].SignatureSource = "attributes"
	}
	return c
}

func TestJudge(t *testing.T) {
	const P, T, U = VerdictPoison, VerdictTransient, VerdictUnknown
	proven := look(true, false, false, 100, 340, P, T) // the issue's: --expect, mixed
	tests := []struct {
		name     string
		saved    *Classification
		look     *Classification
		wantKept bool
		why      string
	}{
		{"first verdict", nil, look(false, false, false, 5, 340, T), false, "the incident's first verdict"},
		{"browse's bare look: no --expect", proven, look(false, false, false, 100, 340, T, T), true, "this look had no --expect (the verdict's look had --expect version=1)"},
		{"inspect --max 5 then a bare classify", proven, look(false, false, false, 5, 340, T), true, "this look had no --expect"},
		{"a bare look bigger than the verdict's", proven, look(false, false, false, 1000, 340, T), true, "this look had no --expect"},
		{"the same evidence, a smaller sample", proven, look(true, false, false, 5, 340, P), true, "the same evidence (--expect) over a smaller sample: this look 5 of 340 sampled, the verdict's look 100 of 340 sampled"},
		{"the same evidence, as large a sample", proven, look(true, false, false, 100, 300, P, P), false, "the same evidence (--expect) and as large a sample"},
		{"the same evidence, the whole DLQ as it is now", proven, look(true, false, false, 8, 8, P), false, "over the whole DLQ as it is now"},
		{"adds a baseline", proven, look(true, true, false, 20, 340, P), false, "this look adds --baseline"},
		{"adds logs", proven, look(true, false, true, 100, 340, P), false, "this look adds logs.json"},
		{"adds logs but drops --expect", proven, look(false, false, true, 100, 340, T), true, "this look had no --expect"},
		{"a baseline instead of --expect", proven, look(false, true, false, 100, 340, P), true, "this look had no --expect"},
		{"proves less: unknown where an error proved the verdict", withSignature(look(false, false, false, 100, 340, T)), look(false, false, false, 200, 340, U), true, "this look proves less: 0% of its messages in groups proven by content or an error, the verdict's look 100%"},
		{"proves more: an error where the verdict was unknown", look(false, false, false, 100, 340, U), withSignature(look(false, false, false, 20, 340, T)), false, "this look proves more"},
		{"proves more: poison by content where timing said transient", look(false, false, false, 100, 340, T), look(false, false, false, 20, 340, P), false, "this look proves more"},
		{"timing alone (an older mfdlq's transient) against unknown: the sample decides", look(false, false, false, 100, 340, T), look(false, false, false, 200, 340, U), false, "the same evidence (no --expect, --baseline or logs) and as large a sample"},
		{"old file without look: logs from the groups", look(true, false, true, 100, 0, P), look(true, false, false, 100, 0, P), true, "this look had no logs.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.saved != nil && tc.saved.Look != nil && tc.saved.Look.InDLQ == 0 {
				tc.saved.Look = nil
			}
			j := Judge(tc.saved, tc.look)
			if j.Kept != tc.wantKept || !strings.Contains(j.Why, tc.why) {
				t.Fatalf("Judge = kept %v, why %q; want kept %v, why containing %q", j.Kept, j.Why, tc.wantKept, tc.why)
			}
			want := tc.look.Verdict
			if tc.wantKept {
				want = tc.saved.Verdict
			}
			if j.Verdict != want || j.Look != tc.look.Verdict {
				t.Errorf("verdict %s (look %s), want %s (look %s)", j.Verdict, j.Look, want, tc.look.Verdict)
			}
		})
	}
}

// TestJudgeNamesWhatChanged: a replacing look lists the groups whose
// verdict it changed, for the event.
func TestJudgeNamesWhatChanged(t *testing.T) {
	saved := look(true, false, false, 100, 340, VerdictPoison, VerdictTransient)
	l := look(true, true, false, 100, 340, VerdictPoison, VerdictData, VerdictPoison)
	j := Judge(saved, l)
	if diff := cmp.Diff([]string{"g2 transient → data", "g3 poison (new)"}, j.Changed); diff != "" || j.Kept {
		t.Errorf("kept %v, changed (-want +got):\n%s", j.Kept, diff)
	}
}

// TestOldClassificationStillJudged: a classification.json written before
// look existed decodes, is judged by its own fields, and gives no estimate.
func TestOldClassificationStillJudged(t *testing.T) {
	old := `{"verdict":"mixed","messages":100,"confidence":0.95,"expect":["version=1"],"baseline":null,
	 "groups":[{"id":"g1","key":"a","verdict":"poison","count":61,"signature_source":"none"},{"id":"g2","key":"b","verdict":"transient","count":39}]}`
	c, err := Parse([]byte(old), "classification.json")
	if err != nil {
		t.Fatal(err)
	}
	e := EvidenceOf(c)
	if want := (Evidence{Expect: true, Sampled: 100, Proven: 100}); e != want {
		t.Errorf("EvidenceOf(old) = %+v, want %+v", e, want)
	}
	if _, ok := c.Estimate(&c.Groups[0]); ok {
		t.Error("an old classification has no DLQ size, yet Estimate gave one")
	}
	if j := Judge(c, look(false, false, false, 5, 340, VerdictTransient)); !j.Kept || j.Verdict != VerdictMixed {
		t.Errorf("a bare look of 5 against an old --expect verdict: %+v, want it kept", j)
	}
	b, _ := json.Marshal(c)
	if strings.Contains(string(b), `"look"`) {
		t.Errorf("an old classification gained a look when written back: %s", b)
	}
}

func TestEstimate(t *testing.T) {
	c := look(true, false, false, 100, 340, VerdictPoison, VerdictTransient)
	c.Groups[0].Count, c.Groups[1].Count = 61, 39
	var got []int
	for i := range c.Groups {
		n, ok := c.Estimate(&c.Groups[i])
		if !ok {
			t.Fatal("no estimate with the DLQ's size known")
		}
		got = append(got, n)
	}
	if diff := cmp.Diff([]int{207, 133}, got); diff != "" {
		t.Errorf("estimates of 61 and 39 of 100 in 340 (-want +got):\n%s", diff)
	}
	if s := EvidenceOf(c).SampleText(); s != "100 of 340 sampled" {
		t.Errorf("SampleText = %q", s)
	}
}
