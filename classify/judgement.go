package classify

import (
	"fmt"
	"slices"
	"strings"
)

// The incident's judgement: classification.json is the one verdict an
// incident acts on (the redrive guard, the runbook's next step, the
// report). A later classify — browse's automatic look, a bare classify
// after a small inspect — may see less than the look that decided it, so
// a look replaces the saved verdict only when it has at least as much
// evidence; a weaker one is shown beside it and never saved. Judge is the
// one place that order is decided; docs/classify.md
// ("One verdict per incident") states it for operators.
//
// The evidence order, strongest first:
//
//  1. the kinds of evidence the look had: --expect (what the consumer
//     accepts), --baseline (healthy messages to compare with), the
//     consumer's own errors from mfdlq logs (logs.json). A look that lacks
//     a kind the saved one had is weaker whatever its size; a look that
//     adds a kind and lacks none is stronger.
//  2. with the same kinds, proof: the share of messages in groups whose
//     verdict rests on content or on an error, not on timing alone
//     (provenGroup). A verdict proven by content or by an error outranks
//     one that only timing suggests.
//  3. with the same kinds and proof, the sample: a look of at least as many
//     messages, or one that saw the whole DLQ as it was then, replaces the
//     saved one (it is newer); a smaller look does not.
//
// Everything is read from the saved result's own fields (expect, baseline,
// the groups' signature source and verdicts, messages, look), so a
// classification.json written by an older mfdlq is judged too.

// Look is how one classify looked: how many messages of how many in the
// DLQ, and how many of the consumer's errors from logs.json it had (when:
// its classify event). Saved in classification.json (absent in older ones).
type Look struct {
	// Sampled is the number of messages classified (Messages).
	Sampled int `json:"sampled"`
	// InDLQ is the DLQ's ApproximateNumberOfMessages when the look began:
	// what each group's estimate scales to. 0: unknown (a --from file).
	InDLQ int `json:"in_dlq"`
	// Source is where the messages were read: "live sample",
	// samples.jsonl or the --from file.
	Source string `json:"source,omitempty"`
	// LogSignatures is how many of the consumer's errors logs.json gave.
	LogSignatures int `json:"log_signatures,omitempty"`
}

// Evidence is what a classification rested on, in the terms Judge weighs.
type Evidence struct {
	Expect   bool // --expect: what the consumer accepts
	Baseline bool // --baseline: healthy messages to compare with
	Logs     bool // the consumer's errors from mfdlq logs
	Sampled  int  // messages classified
	InDLQ    int  // messages in the DLQ at the look; 0 unknown
	// Proven is how many messages are in groups whose verdict rests on
	// more than timing (provenGroup).
	Proven int
}

// EvidenceOf reads the evidence of a classification from its own fields.
// A classification without Look (an older mfdlq) had logs when one of
// its groups' signatures came from logs.
func EvidenceOf(c *Classification) Evidence {
	e := Evidence{Expect: len(c.Expect) > 0, Baseline: c.Baseline != nil, Sampled: c.Messages}
	if c.Look != nil {
		e.InDLQ = c.Look.InDLQ
		e.Logs = c.Look.LogSignatures > 0
	}
	for _, g := range c.Groups {
		if g.SignatureSource == "logs" {
			e.Logs = true
		}
		if provenGroup(e, &g) {
			e.Proven += g.Count
		}
	}
	return e
}

// provenGroup tells whether a group's verdict rests on more than its
// arrival pattern: the content was compared (--expect, --baseline), the
// group has an error signature, or it is poison (never decided by timing:
// an unparseable body is). An unknown group proves nothing, and neither
// does a transient or data verdict that timing alone gave (burst,
// trickle), as an older mfdlq gave it without error text.
func provenGroup(e Evidence, g *Group) bool {
	switch {
	case g.Verdict == VerdictUnknown:
		return false
	case e.Expect || e.Baseline || g.Verdict == VerdictPoison:
		return true
	}
	return g.SignatureSource != "" && g.SignatureSource != "none"
}

// Whole tells whether the look saw every message the DLQ held then.
func (e Evidence) Whole() bool { return e.InDLQ > 0 && e.Sampled >= e.InDLQ }

// kinds names the kinds of evidence e has, in the order of the docs.
func (e Evidence) kinds() []string {
	var k []string
	for _, x := range []struct {
		has  bool
		name string
	}{{e.Expect, "--expect"}, {e.Baseline, "--baseline"}, {e.Logs, "logs.json"}} {
		if x.has {
			k = append(k, x.name)
		}
	}
	return k
}

// SampleText is "100 of 340 sampled", or "100 sampled" when the DLQ's size
// at the look is unknown.
func (e Evidence) SampleText() string {
	if e.InDLQ > 0 {
		return fmt.Sprintf("%d of %d sampled", e.Sampled, e.InDLQ)
	}
	return fmt.Sprintf("%d sampled", e.Sampled)
}

// Judgement is what one look did to the incident's verdict: written in
// the classify event's figures, so the events say what changed and why.
type Judgement struct {
	// Kept: the look had less evidence than the saved verdict, which
	// stays; the look was shown, not saved.
	Kept bool `json:"kept"`
	// Saved is the incident's verdict before the look; "" for the first.
	Saved Verdict `json:"saved,omitempty"`
	// Look is the look's own verdict.
	Look Verdict `json:"look"`
	// Verdict is the incident's verdict after the look.
	Verdict Verdict `json:"verdict"`
	// Why names the evidence that decided.
	Why string `json:"why"`
	// Changed lists the groups whose verdict a replacing look changed
	// ("g1 poison → transient"), by group key.
	Changed []string `json:"changed,omitempty"`
	// LookSample is the look's "N of M sampled".
	LookSample string `json:"look_sample"`
}

// Judge decides whether look replaces saved as the incident's verdict.
// saved is nil when the incident has none yet.
func Judge(saved, look *Classification) Judgement {
	le := EvidenceOf(look)
	j := Judgement{Look: look.Verdict, Verdict: look.Verdict, LookSample: le.SampleText()}
	if saved == nil {
		j.Why = "the incident's first verdict"
		return j
	}
	se := EvidenceOf(saved)
	j.Saved = saved.Verdict
	keep, why := weaker(se, le, saved, look)
	j.Why = why
	if keep {
		j.Kept, j.Verdict = true, saved.Verdict
		return j
	}
	j.Changed = changedGroups(saved, look)
	return j
}

// weaker applies the evidence order: it tells whether look has less
// evidence than saved, and why either way.
func weaker(se, le Evidence, saved, look *Classification) (bool, string) {
	var lacks, adds []string
	for _, k := range []struct {
		saved, look bool
		name        string
	}{{se.Expect, le.Expect, "--expect"}, {se.Baseline, le.Baseline, "--baseline"}, {se.Logs, le.Logs, "logs.json"}} {
		switch {
		case k.saved && !k.look:
			lacks = append(lacks, k.name)
		case k.look && !k.saved:
			adds = append(adds, k.name)
		}
	}
	if len(lacks) > 0 {
		why := "this look had no " + strings.Join(lacks, ", no ")
		if slices.Contains(lacks, "--expect") {
			why += fmt.Sprintf(" (the verdict's look had --expect %s)", strings.Join(saved.Expect, " --expect "))
		}
		return true, why + "; " + sampleWhy(se, le)
	}
	if len(adds) > 0 {
		return false, "this look adds " + strings.Join(adds, " and ") + "; " + sampleWhy(se, le)
	}
	// The same kinds: proof, then the sample.
	sp, lp := share(se.Proven, se.Sampled), share(le.Proven, le.Sampled)
	switch {
	case lp < sp:
		return true, fmt.Sprintf("this look proves less: %.0f%% of its messages in groups proven by content or an error, the verdict's look %.0f%%", lp*100, sp*100)
	case lp > sp:
		return false, fmt.Sprintf("this look proves more: %.0f%% of its messages in groups proven by content or an error, the verdict's look %.0f%%", lp*100, sp*100)
	}
	kinds := "no --expect, --baseline or logs"
	if k := le.kinds(); len(k) > 0 {
		kinds = strings.Join(k, ", ")
	}
	switch {
	case le.Sampled >= se.Sampled:
		return false, "the same evidence (" + kinds + ") and as large a sample: " + sampleWhy(se, le)
	case le.Whole():
		return false, "the same evidence (" + kinds + ") over the whole DLQ as it is now: " + sampleWhy(se, le)
	}
	return true, "the same evidence (" + kinds + ") over a smaller sample: " + sampleWhy(se, le)
}

func sampleWhy(se, le Evidence) string {
	return fmt.Sprintf("this look %s, the verdict's look %s", le.SampleText(), se.SampleText())
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// changedGroups lists, by group key, the verdicts a replacing look
// changed or added, for the event.
func changedGroups(saved, look *Classification) []string {
	before := map[string]Group{}
	for _, g := range saved.Groups {
		before[g.Key] = g
	}
	var out []string
	for _, g := range look.Groups {
		b, ok := before[g.Key]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s %s (new)", g.ID, g.Verdict))
		case b.Verdict != g.Verdict:
			out = append(out, fmt.Sprintf("%s %s → %s", g.ID, b.Verdict, g.Verdict))
		}
	}
	if len(out) == 0 && saved.Verdict != look.Verdict {
		out = append(out, fmt.Sprintf("verdict %s → %s", saved.Verdict, look.Verdict))
	}
	return out
}

// Estimate scales a group's count to the whole DLQ at the look: count ×
// InDLQ / Sampled, rounded. ok is false when the DLQ's size is unknown.
func (c *Classification) Estimate(g *Group) (int, bool) {
	if c.Look == nil || c.Look.InDLQ <= 0 || c.Messages <= 0 {
		return 0, false
	}
	return (g.Count*c.Look.InDLQ + c.Messages/2) / c.Messages, true
}
