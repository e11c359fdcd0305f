package classify

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/signature"
)

// Result decides each group's verdict and the DLQ's. Groups are ordered by
// size, then key, and numbered g1, g2 … in that order.
func (c *Classifier) Result() *Classification {
	out := &Classification{
		Messages: c.messages, Groups: []Group{}, Evidence: []string{}, Expect: []string{},
		Baseline: c.opts.Baseline.summary(), Thresholds: c.opts.Thresholds,
		PayloadPath: c.opts.Envelope.PayloadPath(), BodyErrors: c.bodyErrs,
		BySource: c.opts.BySource || c.manySrc, KeyVersion: signature.Version,
	}
	out.Expect = append(out.Expect, c.expectList()...)
	c.inferFromLogs()
	order := slices.Clone(c.order)
	slices.SortStableFunc(order, func(a, b *acc) int {
		return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.keyFor(out.BySource).String(), b.keyFor(out.BySource).String()))
	})
	weighted := 0.0
	verdicts := map[Verdict]bool{}
	for i, g := range order {
		id := "g" + strconv.Itoa(i+1)
		if g.key.Fingerprint == OtherGroupID {
			id = OtherGroupID
		}
		grp := c.judge(g, id, out.BySource)
		out.Groups = append(out.Groups, grp)
		weighted += grp.Confidence * float64(grp.Count)
		verdicts[grp.Verdict] = true
	}
	out.Verdict = VerdictUnknown
	if c.messages > 0 {
		first, last := time.UnixMilli(c.first).UTC(), time.UnixMilli(c.last).UTC()
		out.FirstSent, out.LastSent = &first, &last
		out.Confidence = incident.Round2(weighted / float64(c.messages))
	}
	if len(verdicts) == 1 {
		out.Verdict = out.Groups[0].Verdict
	} else if len(verdicts) > 1 {
		out.Verdict = VerdictMixed
	}
	c.summarise(out)
	return out
}

// summarise adds the DLQ-wide evidence: duplicates and business operations.
func (c *Classifier) summarise(out *Classification) {
	n, exact := c.bodies.count()
	out.Duplicates = Duplicates{DistinctBodies: n, Repeated: c.messages - n, Exact: exact}
	approx := map[bool]string{true: "", false: "≈"}
	if out.Duplicates.Repeated > 0 {
		out.Evidence = append(out.Evidence, fmt.Sprintf("%s%s an earlier body exactly (at-least-once delivery): %s%s",
			approx[exact], plural.Of(out.Duplicates.Repeated, "message repeats", "messages repeat"), approx[exact], plural.Of(n, "distinct body", "distinct bodies")))
	}
	if c.tally != nil {
		s := c.tally.Summary(TopKeys)
		out.KeyDuplicates = &s
		if s.Duplicates > 0 {
			out.Evidence = append(out.Evidence, fmt.Sprintf("%s an idempotency key (%s) with an earlier message: redrive --dedupe leaves them in the DLQ", plural.Of(s.Duplicates, "message shares", "messages share"), s.Expr))
		}
	}
	if c.opts.Key != "" {
		k, exact := c.keyVals.count()
		out.Key = &KeyCount{Field: c.opts.Key, Distinct: k, Missing: c.keyMiss, Exact: exact}
		line := fmt.Sprintf("%s %s%d distinct %s: the business operations to restore", plural.Of(c.messages, "message holds", "messages hold"), approx[exact], k, c.opts.Key)
		if c.keyMiss > 0 {
			line += fmt.Sprintf(" (%d have no %s)", c.keyMiss, c.opts.Key)
		}
		out.Evidence = append(out.Evidence, line)
	}
	if line := sourceEvidence(out); line != "" {
		out.Evidence = append(out.Evidence, line)
	}
	if len(out.Groups) > 1 {
		var parts []string
		for _, g := range out.Groups {
			parts = append(parts, fmt.Sprintf("%s %s (%d)", g.ID, g.Verdict, g.Count))
		}
		out.Evidence = append(out.Evidence, fmt.Sprintf("%d groups: %s", len(out.Groups), strings.Join(parts, ", ")))
	}
}

// judge turns one accumulated group into its verdict and evidence.
func (c *Classifier) judge(g *acc, id string, bySource bool) Group {
	grp := Group{
		ID: id, Key: g.keyFor(bySource).String(), Count: g.n, Fingerprint: g.key.Fingerprint, Signature: g.key.Signature,
		FirstSent: time.UnixMilli(g.arr.first).UTC(), LastSent: time.UnixMilli(g.arr.last).UTC(),
		SentSpanSeconds: (g.arr.last - g.arr.first) / 1000, Pattern: g.arr.pattern(c.opts.Thresholds),
		Error: g.errText, DistinctErrors: len(g.errTexts), ReceiveCounts: map[string]int{},
		Arrivals: g.arr.chart(c.first, c.last, ChartColumns), ExampleIDs: g.ids,
		Envelope: g.envelope, Batch: g.batch, ErrorFrom: g.errFrom, Inferred: g.inferred,
	}
	grp.SignatureSource = signatureSource(g)
	grp.SourceARN, grp.Source, grp.SourceMixed = g.sourceOf()
	for n, k := range g.receives {
		grp.ReceiveCounts[strconv.Itoa(n)] = k
	}
	content := c.content(g)
	timing := c.timing(g)
	said, valueLine := sharedValue(g, g.meaning())
	sizeLine := ""
	if said.fact != nil && (said.fact.timeout || said.fact.limit) && !content.poison {
		said, sizeLine = c.compareTimeouts(g, said)
	}
	verdict, conf := decide(content, timing, said)
	grp.Drift = content.drifts
	grp.Verdict, grp.Confidence = verdict, incident.Round2(conf)
	grp.DecidedBy = decidedBy(content, said, verdict)
	grp.Evidence = append(grp.Evidence, content.evidence...)
	grp.Evidence = append(grp.Evidence, meaningEvidence(content, timing, said, verdict, g.errFrom)...)
	for _, l := range []string{valueLine, sizeLine} {
		if l != "" {
			grp.Evidence = append(grp.Evidence, l)
		}
	}
	grp.Evidence = append(grp.Evidence, timing.evidence(verdict, said.verdict != "" && !content.poison)...)
	if verdict == VerdictUnknown {
		grp.Evidence = append(grp.Evidence, c.toDecide(g))
	}
	grp.Evidence = append(grp.Evidence, errorEvidence(g, grp)...)
	grp.Evidence = append(grp.Evidence, receiveEvidence(g)...)
	if bySource && grp.SourceARN == "" && !grp.SourceMixed && id != OtherGroupID {
		grp.Evidence = append(grp.Evidence, noSourceEvidence)
	}
	if line := chainEvidence(g); line != "" {
		grp.Evidence = append(grp.Evidence, line)
	}
	grp.Action = c.action(grp, content, said, bySource)
	return grp
}

// signatureSource is where the group's signatures came from, the
// strongest first: logs, the envelope, the payload (when every message's
// error came from it), the attributes, else "none".
func signatureSource(g *acc) string {
	switch {
	case g.fromLogs > 0:
		return "logs"
	case g.fromEnvelope > 0:
		return "envelope"
	case g.fromBody > 0 && g.fromBody == g.fromAttrs:
		return "body"
	case g.fromAttrs > 0:
		return "attributes"
	}
	return "none"
}

// decide combines what the content proves, what the error says and what
// the timing suggests, in that order. Content wins: a payload contrary to
// the baseline or --expect is poison whatever its error or arrival pattern.
// Then a typed fact of the error (an SQLSTATE, an AWS error code, an HTTP
// status…), else a clear phrase, outranks the arrival pattern: a bulk
// import failing with CustomerNotFound in a burst is data. The time
// pattern decides only for messages whose content is verified (a baseline
// or --expect they match): with no proof at all it is a clue, and the
// verdict is unknown (the evidence says what it suggests).
func decide(content contentFinding, timing timingFinding, said meaning) (Verdict, float64) {
	if content.poison {
		return VerdictPoison, content.confidence
	}
	if said.verdict != "" {
		agree := said.verdict == timing.verdict
		switch {
		case said.fact != nil && content.verified:
			return said.verdict, 0.95
		case said.fact != nil:
			// A code of a cited taxonomy is proof in itself.
			return said.verdict, 0.85
		case content.verified && agree:
			return said.verdict, 0.95
		case content.verified:
			return said.verdict, 0.85
		case said.verdict == VerdictPoison:
			// Unverified content, but the consumer blames the shape.
			return VerdictPoison, 0.7
		case agree:
			return said.verdict, 0.65
		}
		return said.verdict, 0.6
	}
	if !content.verified {
		return VerdictUnknown, min(timing.confidence, 0.3)
	}
	return timing.verdict, timing.confidence
}

// decidedBy names what decided a group's verdict, for Group.DecidedBy.
func decidedBy(content contentFinding, said meaning, verdict Verdict) string {
	switch {
	case content.poison:
		return "content"
	case said.fact != nil && said.verdict == verdict:
		return said.fact.taxonomy + " " + said.fact.code
	case said.verdict != "" && said.verdict == verdict:
		return "error text: " + strconv.Quote(said.words)
	case verdict == VerdictUnknown:
		return ""
	}
	return "timing"
}

// meaningEvidence says what the error text says and how it weighed.
func meaningEvidence(content contentFinding, timing timingFinding, said meaning, verdict Verdict, from string) []string {
	switch {
	case said.verdict == "":
		return nil
	case content.poison && said.fact != nil && said.verdict != VerdictPoison:
		return []string{fmt.Sprintf("the error names %s, %s, but the content is the proof: poison whatever the error says", said.fact, said.verdict)}
	case content.poison && said.fact != nil:
		return []string{fmt.Sprintf("the error names %s — it agrees with the content", said.fact)}
	case content.poison && said.verdict != VerdictPoison:
		return []string{fmt.Sprintf("the error says %q (%s), but the content is the proof: poison whatever the error says", said.words, said.verdict)}
	case content.poison:
		return []string{fmt.Sprintf("the error says %q: %s — it agrees with the content", said.words, said.why)}
	}
	in := ""
	if from != "" {
		in = " in " + from
	}
	line := fmt.Sprintf("the error%s says %q: %s — %s", in, said.words, said.why, verdict)
	if said.fact != nil {
		line = fmt.Sprintf("the error%s names %s — %s", in, said.fact, verdict)
	}
	if timing.pattern != PatternSingle && timing.verdict != said.verdict && timing.verdict != VerdictUnknown {
		line += fmt.Sprintf("; a clear error outranks the arrival pattern (a %s alone would suggest %s)", timing.pattern, timing.verdict)
	}
	return []string{line}
}

// span writes a duration the way people say it: 1h47m, 2d3h, 29m, 40s.
func span(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%ds", int(d.Seconds()))
}
