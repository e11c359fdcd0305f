package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/plural"
)

func (inc *Incident) writeClassify(b *strings.Builder) {
	c := inc.Classification
	if c == nil {
		b.WriteString("\nclassification.json is missing.\n")
		return
	}
	fmt.Fprintf(b, "\nOverall: **%s** over %s, confidence %.2f, %s.\n", c.Verdict, plural.Of(c.Messages, "message"), c.Confidence, plural.Of(len(c.Groups), "group"))
	for _, e := range c.Evidence {
		fmt.Fprintf(b, "- %s\n", e)
	}
	for i, g := range c.Groups {
		fmt.Fprintf(b, "\n### Group %s: %s — %s\n\n", firstNonEmpty(g.ID, fmt.Sprint(i+1)), g.Verdict, plural.Of(g.Count, "message"))
		if g.Pattern != "" {
			fmt.Fprintf(b, "- arrival pattern: %s\n", g.Pattern)
		}
		if g.Error != "" {
			fmt.Fprintf(b, "- error: `%s`\n", inc.clean(g.Error))
		}
		if g.Fingerprint != "" {
			fmt.Fprintf(b, "- fingerprint: `%s`\n", g.Fingerprint)
		}
		if g.Signature != "" {
			fmt.Fprintf(b, "- error signature: `%s`\n", g.Signature)
		}
		if !g.FirstSent.IsZero() && !g.LastSent.IsZero() {
			fmt.Fprintf(b, "- sent: %s → %s (%s)\n", g.FirstSent.UTC().Format(time.RFC3339), g.LastSent.UTC().Format(time.RFC3339), g.LastSent.Sub(g.FirstSent).Round(time.Second))
		}
		if len(g.ReceiveCounts) > 0 {
			fmt.Fprintf(b, "- receive counts: %s\n", countsList(g.ReceiveCounts))
		}
		for _, e := range g.Evidence {
			fmt.Fprintf(b, "- evidence: %s\n", e)
		}
		if g.Action != "" {
			fmt.Fprintf(b, "- action: %s\n", g.Action)
		}
		b.WriteString("\nArrivals:\n\n")
		b.WriteString(inc.groupChart(g))
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
