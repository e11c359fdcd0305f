package classify

import (
	"fmt"
	"time"
)

// timingFinding is what a group's arrival pattern suggests. The distribution
// over time is a clue, never the proof.
type timingFinding struct {
	pattern     string
	verdict     Verdict
	confidence  float64
	first, last time.Time
	span        time.Duration
	densest     time.Duration
	share       float64
	notes       []string
}

// timing reads the arrival pattern together with the errors: a transient
// failure is a burst with one error, a data failure a trickle whose errors
// name different entities.
func (c *Classifier) timing(g *acc) timingFinding {
	th := c.opts.Thresholds
	t := timingFinding{
		pattern: g.arr.pattern(th), first: time.UnixMilli(g.arr.first).UTC(), last: time.UnixMilli(g.arr.last).UTC(),
		span: g.arr.span(), densest: g.arr.densest(th.BurstShare), share: th.BurstShare,
	}
	entities := len(g.errTexts) > 1
	sameError := g.fromAttrs == g.n && len(g.errTexts) == 1 || g.fromLogs == g.n
	switch t.pattern {
	case PatternBurst:
		t.verdict, t.confidence = VerdictTransient, 0.8
		switch {
		case entities:
			t.confidence = 0.6
			t.notes = append(t.notes, fmt.Sprintf("but the errors name %d different entities: it could be data", len(g.errTexts)))
		case sameError:
			t.confidence = 0.9
		}
	case PatternTrickle:
		t.verdict, t.confidence = VerdictData, 0.75
		if entities {
			t.confidence = 0.9
		}
	default:
		switch {
		case entities:
			t.verdict, t.confidence = VerdictData, 0.6
		case sameError && t.pattern == PatternSpread:
			t.verdict, t.confidence = VerdictTransient, 0.5
		default:
			t.verdict, t.confidence = VerdictUnknown, 0.3
		}
	}
	return t
}

// evidence describes the timing; when the content (poison) or the error
// (byError) decided, it says why the time pattern does not.
func (t timingFinding) evidence(verdict Verdict, byError bool) []string {
	poison := verdict == VerdictPoison && !byError
	var line string
	switch t.pattern {
	case PatternSingle:
		line = fmt.Sprintf("one message, sent %s: no arrival pattern", t.first.Format(time.RFC3339))
	case PatternBurst:
		line = fmt.Sprintf("sent %s (%s), %.0f%% within %s: a burst", window(t.first, t.last), span(t.span), t.share*100, span(t.densest))
		switch {
		case verdict == VerdictUnknown:
			line += ": looks transient — not proven"
		case poison:
			line += ", which looks transient — misleading here: the content is the proof"
		case byError && verdict != VerdictTransient:
			line += ", which looks transient — the error says otherwise"
		}
	case PatternTrickle:
		line = fmt.Sprintf("sent over %s (%s) with no burst: a trickle", span(t.span), window(t.first, t.last))
		switch {
		case verdict == VerdictUnknown:
			line += ": looks like bad data — not proven"
		case poison:
			line += " — the time pattern does not matter here: the content is the proof"
		case byError && verdict != VerdictData:
			line += " — the error says otherwise"
		}
	default:
		line = fmt.Sprintf("sent over %s (%s): neither a clear burst nor a trickle", span(t.span), window(t.first, t.last))
	}
	if byError {
		return []string{line} // the notes weigh the timing, which did not decide
	}
	return append([]string{line}, t.notes...)
}

// toDecide is an unknown group's evidence line that names the one command
// that would decide it: the consumer's exception when the messages carry
// none, else a baseline or --expect to prove the content.
func (c *Classifier) toDecide(g *acc) string {
	q := c.opts.Queue
	if q == "" {
		q = "DLQ"
	}
	compared := c.opts.Baseline != nil && c.opts.Baseline.Messages > 0 || len(c.expFields) > 0
	switch {
	case g.fromAttrs == 0 && g.fromLogs == 0 && g.off != nil && compared:
		return fmt.Sprintf("no error text and no logs, and the payloads are in S3: the timing is a clue, not a proof — to decide, compare what is inside: classify again with --fetch-payloads N (or read the consumer's exception: mfdlq logs --queue %s --log-group LOG_GROUP)", q)
	case g.fromAttrs == 0 && g.fromLogs == 0 && compared:
		return fmt.Sprintf("no error text and no logs, and the content could not be verified: the timing is a clue, not a proof — to decide, read the consumer's exception: mfdlq logs --queue %s --log-group LOG_GROUP", q)
	case g.fromAttrs == 0 && g.fromLogs == 0:
		return fmt.Sprintf("no error text, no logs, no baseline and no --expect: the timing is a clue, not a proof — to decide, read the consumer's exception: mfdlq logs --queue %s --log-group LOG_GROUP (or classify again with --expect FIELD=VALUE or --baseline FILE)", q)
	}
	return "the error names no code or class mfdlq knows, and the content is not verified: the timing is a clue, not a proof — to decide, classify again with --baseline FILE (healthy messages) or --expect FIELD=VALUE"
}
