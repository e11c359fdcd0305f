package report

import (
	"cmp"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
)

func (inc *Incident) writeClassify(b *strings.Builder, _ incident.Event) {
	c := inc.Classification
	if c == nil {
		b.WriteString("\nclassification.json is missing.\n")
		return
	}
	over := plural.Of(c.Messages, "message")
	if c.Look != nil && c.Look.InDLQ > 0 {
		over = classify.EvidenceOf(c).SampleText() // "100 of 340 sampled"
	}
	fmt.Fprintf(b, "\nOverall: **%s** over %s, confidence %.2f, %s.\n", inc.plain(string(c.Verdict), maxName), over, c.Confidence, plural.Of(len(c.Groups), "group"))
	ne, moreEvidence := capped(len(c.Evidence), "evidence line")
	for _, e := range c.Evidence[:ne] {
		if inc.Changes != nil && inc.Changes.Evidence != "" && e == "changes: "+inc.Changes.Evidence {
			continue // the first screen's nearest change
		}
		fmt.Fprintf(b, "- %s\n", inc.plain(e, maxValue))
	}
	b.WriteString(moreEvidence)
	ng, moreGroups := capped(len(c.Groups), "group")
	for i := range c.Groups[:ng] {
		inc.writeGroup(b, c, i)
	}
	b.WriteString(moreGroups)
}

// writeGroup is the i-th group's section: its facts, one line each, its
// drift and evidence, its action and its arrivals' chart.
func (inc *Incident) writeGroup(b *strings.Builder, c *classify.Classification, i int) {
	g := c.Groups[i]
	count := plural.Of(g.Count, "message")
	if n, ok := c.Estimate(&g); ok {
		count += fmt.Sprintf(" (≈%d of %d in the DLQ)", n, c.Look.InDLQ)
	}
	fmt.Fprintf(b, "\n### Group %s: %s — %s\n\n", inc.plain(cmp.Or(g.ID, fmt.Sprint(i+1)), maxName), inc.plain(string(g.Verdict), maxName), count)
	if line := groupSource(inc, c, &g); line != "" {
		b.WriteString(line)
	}
	inc.writeGroupFacts(b, &g)
	// The drift from the baseline is quoted first, on its own lines.
	drift := map[string]bool{}
	for _, d := range g.Drift {
		drift[d.Text] = true
		fmt.Fprintf(b, "- drift: %s\n", inc.plain(d.Text, maxValue))
	}
	ne, more := capped(len(g.Evidence), "evidence line")
	for _, e := range g.Evidence[:ne] {
		if !drift[e] {
			fmt.Fprintf(b, "- evidence: %s\n", inc.plain(e, maxValue))
		}
	}
	b.WriteString(more)
	if g.Action != "" {
		fmt.Fprintf(b, "- action: %s\n", inc.plain(g.Action, maxValue))
	}
	b.WriteString("\nArrivals:\n\n")
	b.WriteString(inc.groupChart(g))
}

// writeGroupFacts writes the group's facts that it has: arrival pattern,
// error, fingerprint, signature, send times and receive counts.
func (inc *Incident) writeGroupFacts(b *strings.Builder, g *classify.Group) {
	if g.Pattern != "" {
		fmt.Fprintf(b, "- arrival pattern: %s\n", inc.plain(string(g.Pattern), maxName))
	}
	if g.Error != "" {
		fmt.Fprintf(b, "- error: %s\n", inc.code(g.Error, maxValue))
	}
	if g.Fingerprint != "" {
		fmt.Fprintf(b, "- fingerprint: %s\n", inc.fingerprint(g.Fingerprint))
	}
	if g.Signature != "" && g.Error == "" {
		// The error above says it with its values; the signature
		// (placeholders for them) only when there is no error.
		fmt.Fprintf(b, "- error signature: %s\n", inc.code(g.Signature, maxValue))
	}
	if !g.FirstSent.IsZero() && !g.LastSent.IsZero() {
		fmt.Fprintf(b, "- sent: %s → %s (%s)\n", inc.at(g.FirstSent), inc.at(g.LastSent), human(g.LastSent.Sub(g.FirstSent)))
	}
	if len(g.ReceiveCounts) > 0 {
		fmt.Fprintf(b, "- receive counts: %s\n", inc.plain(countsList(g.ReceiveCounts), maxValue))
	}
}

func countsList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, errA := strconv.Atoi(keys[i])
		c, errC := strconv.Atoi(keys[j])
		if errA == nil && errC == nil {
			return a < c
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// groupSource is a group's "- source queue:" line: the queue SQS moved its
// messages from (DeadLetterQueueSourceArn), with its ARN, "" when neither
// the group nor the classification knows one (a single-source DLQ read
// without the attribute, an older classification.json).
func groupSource(inc *Incident, c *classify.Classification, g *classify.Group) string {
	switch {
	case g.SourceARN != "":
		return fmt.Sprintf("- source queue: %s (%s)\n", inc.code(g.SourceName(), maxName), inc.code(g.SourceARN, maxValue))
	case g.SourceMixed:
		return "- source queue: several (the group gathers the keys past the limit)\n"
	case c.BySource:
		return "- source queue: none — the messages carry no DeadLetterQueueSourceArn (sent to the DLQ directly): a redrive needs --to\n"
	}
	return ""
}
