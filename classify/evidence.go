package classify

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/plural"
)

// contentFinding is what a group's bodies prove.
type contentFinding struct {
	poison     bool
	verified   bool    // compared with a baseline or --expect and found known
	confidence float64 // of poison
	accepts    string  // what the consumer would have to accept
	evidence   []string
	drifts     []Drift // the payloads' drift from the baseline's field profile
}

func (f *contentFinding) poisoned(conf float64, format string, args ...any) {
	f.poison, f.confidence = true, max(f.confidence, conf)
	f.evidence = append(f.evidence, fmt.Sprintf(format, args...))
}

// content compares a group's bodies with --expect and the baseline.
func (c *Classifier) content(g *acc) contentFinding {
	var f contentFinding
	f.accepts = describeShape(g)
	switch g.kind {
	case FingerprintUnparseable:
		f.poisoned(0.95, "%d bodies are not JSON (first: %s): no consumer can process them as they are", g.n, g.problem)
		return f
	case "empty":
		f.poisoned(0.9, "%d bodies are empty", g.n)
		return f
	case FingerprintNoPayload:
		f.poisoned(0.8, "%d messages have nothing at %s (--payload): no payload for the consumer to process", g.n, c.opts.Envelope.PayloadPath())
		return f
	case FingerprintInStream:
		f.evidence = append(f.evidence, inStreamEvidence(g))
		return f
	}
	for _, field := range c.expFields {
		if bad := g.contrary[field]; bad > 0 {
			seen := field + "=" + g.seenValue[field]
			if g.seenValue[field] == "" {
				seen = "no " + field
			}
			f.poisoned(0.95, "%d of %d have %s, but the consumer expects %s (--expect): the %s is the proof", bad, g.n, seen, c.expectText(field), field)
		}
	}
	if len(c.expFields) > 0 && !f.poison {
		f.verified = true
		f.evidence = append(f.evidence, fmt.Sprintf("all %d match what the consumer expects (%s)", g.n, strings.Join(c.expectList(), ", ")))
	}
	if b := c.opts.Baseline; b != nil && b.Messages > 0 {
		c.compareBaseline(g, b, &f)
	} else if len(c.expFields) == 0 {
		f.evidence = append(f.evidence, fmt.Sprintf("all %d share %s; without a baseline, poison cannot be ruled out (pass --baseline FILE or --expect FIELD=VALUE)", g.n, f.accepts))
	}
	return f
}

func (c *Classifier) compareBaseline(g *acc, b *Baseline, f *contentFinding) {
	wasPoison := f.poison
	if g.off != nil {
		c.compareOffloaded(g, b, f)
		return
	}
	if g.kind != "object" && b.Objects > 0 {
		f.poisoned(0.85, "bodies are JSON %s; the baseline's %d messages are objects", g.kind, b.Objects)
	}
	compareFields(g, b, f)
	compareKeys(g, b, f)
	compareSchema(g, b, f)
	if c.prof != nil && g.kind == "object" {
		c.weighDrifts(g, c.prof.drifts(&g.fields2, false), f)
	}
	if f.poison == wasPoison && !f.poison {
		f.verified = true
		f.evidence = append(f.evidence, fmt.Sprintf("content matches the baseline's %d messages (%s)", b.Messages, f.accepts))
	}
}

// compareFields: a schema-naming field whose value (or the field itself)
// no baseline message has is proof of poison.
func compareFields(g *acc, b *Baseline, f *contentFinding) {
	for _, fl := range g.fields {
		vals, known := b.Values[fl.name]
		switch {
		case !known:
			f.poisoned(0.8, "all %d have %s=%s; no baseline message has a %s field", g.n, fl.name, fl.value, fl.name)
		case vals[fl.value] == 0:
			f.poisoned(0.9, "all %d have %s=%s, absent from the baseline's %d messages (%s): the %s is the proof",
				g.n, fl.name, fl.value, b.Messages, valueList(fl.name, vals), fl.name)
		}
	}
}

// compareKeys compares the group's top-level keys with the baseline's: a
// key (nearly) every baseline message has and the group lacks is proof of
// poison, an extra one is evidence. A Step Functions error record alone
// lacks the input's keys by nature: the error decides.
func compareKeys(g *acc, b *Baseline, f *contentFinding) {
	var missing, extra []string
	errorOnly := isErrorRecord(g)
	for k, n := range b.KeyCounts {
		if n*100 >= b.Objects*99 && !slices.Contains(g.keys, k) && g.kind == "object" && !errorOnly {
			missing = append(missing, k)
		}
	}
	for _, k := range g.keys {
		if _, ok := b.KeyCounts[k]; !ok {
			extra = append(extra, k)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		f.poisoned(0.8, "they lack %s, which every baseline message has", strings.Join(missing, ", "))
	}
	if len(extra) > 0 && !errorOnly {
		f.evidence = append(f.evidence, fmt.Sprintf("they have %s no baseline message has: %s", plural.Noun(len(extra), "field"), strings.Join(extra, ", ")))
	}
	if errorOnly {
		f.evidence = append(f.evidence, fmt.Sprintf("the bodies are the Step Functions error record alone {%s}: the original input is not in the message, so the error decides", strings.Join(g.keys, ",")))
	}
}

// describeShape names what a group's bodies share: "version=2" or their keys.
func describeShape(g *acc) string {
	if g.kind != "object" {
		return "JSON " + g.kind + " bodies"
	}
	if len(g.fields) > 0 {
		var parts []string
		for _, f := range g.fields {
			parts = append(parts, f.name+"="+f.value)
		}
		return strings.Join(parts, " ")
	}
	return "the fields {" + strings.Join(g.keys, ",") + "}"
}

func (c *Classifier) expectText(field string) string {
	var vals []string
	for _, e := range c.opts.Expect {
		if e.Field == field {
			vals = append(vals, e.String())
		}
	}
	return strings.Join(vals, " or ")
}

func (c *Classifier) expectList() []string {
	var out []string
	for _, e := range c.opts.Expect {
		out = append(out, e.String())
	}
	return out
}

// valueList writes a baseline field's values, most common first.
func valueList(name string, vals map[string]int) string {
	var parts []string
	for i, v := range mostCommon(vals) {
		if i == 3 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%s=%s ×%d", name, v, vals[v]))
	}
	return strings.Join(parts, ", ")
}

// receiveEvidence describes the receive counts without reading more into
// them than they hold.
func receiveEvidence(g *acc) []string {
	if len(g.receives) == 0 {
		return []string{"no ApproximateReceiveCount attribute"}
	}
	counts := make([]int, 0, len(g.receives))
	for n := range g.receives {
		counts = append(counts, n)
	}
	slices.Sort(counts)
	caveat := "every receive adds to ApproximateReceiveCount, mfdlq's own peeks included"
	if len(counts) == 1 {
		return []string{fmt.Sprintf("receive count %d for all %d: uniform, which only says they were received as often, not why they failed (%s)", counts[0], g.receives[counts[0]], caveat)}
	}
	var parts []string
	for _, n := range counts {
		parts = append(parts, fmt.Sprintf("%d×%d", n, g.receives[n]))
	}
	return []string{fmt.Sprintf("receive counts %s (count×messages; %s)", strings.Join(parts, ", "), caveat)}
}

// errorEvidence describes the error the group shares.
func errorEvidence(g *acc, grp Group) []string {
	switch grp.SignatureSource {
	case "logs":
		line := fmt.Sprintf("the consumer's logs give %d of %d the error %q", g.fromLogs, g.n, g.key.Signature)
		if g.inferred > 0 {
			return []string{line, inferredEvidence(g)}
		}
		return []string{line}
	case "attributes", "envelope", "body":
		of := ""
		if g.fromAttrs < g.n {
			of = fmt.Sprintf(" (%d of %d carry it)", g.fromAttrs, g.n)
		}
		if len(g.errTexts) <= 1 {
			return []string{fmt.Sprintf("the same error on all %d%s: %q", g.n, of, errorHeadline(g.errText))}
		}
		n := strconv.Itoa(len(g.errTexts))
		if len(g.errTexts) >= maxErrorTexts {
			n += "+"
		}
		if g.secondary > 0 {
			return []string{fmt.Sprintf("one error signature %q, %s different error texts (some with a second error raised around the first)%s, e.g. %q", g.key.Signature, n, of, errorHeadline(g.errText))}
		}
		return []string{fmt.Sprintf("one error signature %q, %s different error texts naming different entities%s, e.g. %q", g.key.Signature, n, of, errorHeadline(g.errText))}
	}
	return []string{"no error attribute and no log line: run mfdlq logs to see the consumer's exception"}
}

// chainEvidence says, when errors chain, that the root cause decided and
// what was raised around it: a TypeError in the handler of a call that
// timed out belongs with the timeouts.
func chainEvidence(g *acc) string {
	if g.secondary == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d show a second error raised around the first (%q): the first — the root cause — decided, and they are grouped with it", g.secondary, g.n, g.secondText)
}

// action is the recommended next step for a group.
func (c *Classifier) action(grp Group, content contentFinding, said meaning, bySource bool) string {
	q := cmp.Or(c.opts.Queue, "DLQ")
	redrive := fmt.Sprintf("mfdlq redrive --queue %s --group %s", q, grp.ID)
	if bySource && grp.SourceARN == "" && !grp.SourceMixed && grp.ID != OtherGroupID {
		// No source to go back to: the operator names the queue.
		redrive += " --to QUEUE"
	}
	if !content.verified && !content.poison && grp.Verdict != VerdictUnknown {
		redrive += " — but first rule out poison: classify again with --baseline FILE or --expect FIELD=VALUE"
	}
	if grp.Batch != nil {
		return inStreamAction(grp, said)
	}
	switch grp.Verdict {
	case VerdictPoison:
		if strings.HasPrefix(grp.Fingerprint, FingerprintUnparseable) || strings.HasPrefix(grp.Fingerprint, "empty") {
			return "do not redrive these as they are: no consumer can read them; find why the producer sends them, resend corrected messages, then archive these"
		}
		return fmt.Sprintf("fix the consumer to accept %s (or translate the messages), deploy it, then redrive: %s — never before", content.accepts, redrive)
	case VerdictTransient:
		if said.wait {
			return fmt.Sprintf("once the dependency behind %q has capacity again, redrive slower than the consumer was fed (it throttled: retry with more wait): %s --rate N", cmp.Or(grp.Signature, "the failure"), redrive)
		}
		return fmt.Sprintf("once the dependency behind %q is healthy again, redrive: %s", cmp.Or(grp.Signature, "the failure"), redrive)
	case VerdictData:
		return fmt.Sprintf("correct the data at source (what the errors name), then redrive those: %s", redrive)
	}
	return fmt.Sprintf("do not redrive on timing alone: find the consumer's exception (mfdlq logs --queue %s --log-group LOG_GROUP) or prove the content (classify again with --expect FIELD=VALUE or --baseline FILE)", q)
}

// window writes a group's send window: "2024-03-10 22:04–23:51 UTC".
func window(first, last time.Time) string {
	if first.Format("2006-01-02") == last.Format("2006-01-02") {
		return first.Format("2006-01-02 15:04") + "–" + last.Format("15:04") + " UTC"
	}
	return first.Format("2006-01-02 15:04") + " – " + last.Format("2006-01-02 15:04") + " UTC"
}

// inStreamEvidence describes a group of stream on-failure records.
func inStreamEvidence(g *acc) string {
	b := g.batch
	return fmt.Sprintf("%s are on-failure records of the %s stream %s (the first: shard %s, sequence numbers %s to %s, %s): the records themselves are not in the messages — the error decides",
		plural.Of(g.n, "message", "messages"), b.Source, streamName(b.Stream), b.Shard, b.Start, b.End, plural.Of(b.Size, "record", "records"))
}

// inStreamAction is the next step for stream on-failure records: the
// records must be read again from the stream, by shard and sequence range,
// before its retention ends; moving these messages moves only pointers.
func inStreamAction(grp Group, said meaning) string {
	b := grp.Batch
	fix := "find the function's exception for these batches (mfdlq logs with the request ids)"
	switch {
	case said.verdict == VerdictTransient && said.wait:
		fix = "once the function keeps up again (it was throttled or behind)"
	case said.verdict == VerdictTransient:
		fix = "once the dependency behind " + strconv.Quote(cmp.Or(grp.Signature, "the failure")) + " is healthy again"
	case said.verdict == VerdictPoison:
		fix = "after fixing the function to accept these records"
	case said.verdict == VerdictData:
		fix = "after correcting the data the errors name"
	}
	return fmt.Sprintf("%s, read the records again from %s (shard %s, sequence numbers %s to %s, and the other groups' ranges) before the stream's retention ends, and process them; redriving these messages would move only the records' coordinates", fix, b.Stream, b.Shard, b.Start, b.End)
}
