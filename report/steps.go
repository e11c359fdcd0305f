package report

import (
	"encoding/json"
	"fmt"
	"github.com/mfdlq/mfdlq/incident"
	"sort"
	"strconv"
	"strings"
	"time"
)

// stepTitles are the report's section titles, in runbook order.
var stepTitles = []struct{ step, title string }{
	{"contain", "1. contain — is the problem still alive?"},
	{"inspect", "2. inspect — what is in there?"},
	{"classify", "3. classify — poison, transient or data"},
	{"logs", "4. logs — the consumer's real exception"},
	{"fix", "Fix — what was changed before the redrive"},
	{"redrive", "5. redrive — the move back"},
	{"verify", "6. verify — did the fix hold?"},
	{"check", "Safeguards — mfdlq check"},
}

func (inc *Incident) writeSteps(b *strings.Builder) {
	for _, st := range stepTitles {
		fmt.Fprintf(b, "## %s\n\n", st.title)
		ev, ok := inc.Latest(st.step)
		if !ok {
			b.WriteString("not run.\n\n")
			continue
		}
		writeEvent(b, ev)
		switch st.step {
		case "contain":
			inc.writeContain(b)
		case "inspect":
			inc.writeInspect(b)
		case "classify":
			inc.writeClassify(b)
		case "logs":
			inc.writeLogs(b)
		case "redrive":
			inc.writeRedrive(b)
		case "verify":
			inc.writeVerify(b)
		case "check":
			inc.writeCheck(b)
		}
		b.WriteString("\n")
	}
}

// writeEvent shows what every step has: when, the command, the verdict, the
// inputs and figures (sorted, so golden files hold).
func writeEvent(b *strings.Builder, ev incident.Event) {
	fmt.Fprintf(b, "- ran: %s\n", ev.Time.UTC().Format(time.RFC3339))
	if len(ev.Command) > 0 {
		fmt.Fprintf(b, "- command: `%s`\n", ShellJoin(ev.Command))
	}
	if ev.Verdict != "" {
		fmt.Fprintf(b, "- verdict: **%s**\n", ev.Verdict)
	}
	if s := kvList(ev.Inputs); s != "" {
		fmt.Fprintf(b, "- inputs: %s\n", s)
	}
	if s := kvList(ev.Figures); s != "" {
		fmt.Fprintf(b, "- figures: %s\n", s)
	}
	if ev.Artifact != "" {
		fmt.Fprintf(b, "- artifact: `%s`\n", ev.Artifact)
	}
}

func kvList(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v == nil || v == "" {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+" "+value(m[k]))
	}
	return strings.Join(parts, " · ")
}

// value formats a figure: whole numbers without decimals, others compactly.
func value(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'f', 2, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	j, _ := json.Marshal(v)
	return string(j)
}

func (inc *Incident) writeContain(b *strings.Builder) {
	c := inc.Contain
	if c == nil {
		b.WriteString("\ncontain.json is missing.\n")
		return
	}
	b.WriteString("\n| | |\n|---|---|\n")
	row(b, "verdict", c.Verdict)
	row(b, "DLQ visible / in flight", intOrDash(c.DLQ.Visible)+" / "+intOrDash(c.DLQ.InFlight))
	trend := orDash(c.DLQ.Trend)
	if c.DLQ.From != nil && c.DLQ.To != nil {
		trend += fmt.Sprintf(" (%s → %s", value(*c.DLQ.From), value(*c.DLQ.To))
		if c.DLQ.Window != "" {
			trend += " over " + c.DLQ.Window
		}
		if c.DLQ.Source != "" {
			trend += ", from " + c.DLQ.Source
		}
		trend += ")"
	}
	row(b, "DLQ trend", trend)
	if s := c.Source; s != nil {
		row(b, "source queue", orDash(s.Queue))
		row(b, "source visible / in flight", intOrDash(s.Visible)+" / "+intOrDash(s.InFlight))
		row(b, "source age of oldest message", seconds(s.AgeOfOldestSeconds)+" (normal "+seconds(s.NormalAgeSeconds)+")")
	} else {
		row(b, "source queue", "none found")
	}
	for i, m := range c.Mappings {
		row(b, fmt.Sprintf("Lambda mapping %d", i+1), kvList(m))
	}
	if len(c.Change) > 0 {
		row(b, "mapping change", kvList(c.Change))
	}
	for _, r := range c.Reasons {
		fmt.Fprintf(b, "\n- %s", r)
	}
	if len(c.Reasons) > 0 {
		b.WriteString("\n")
	}
}

func seconds(p *float64) string {
	if p == nil {
		return "-"
	}
	return (time.Duration(*p) * time.Second).String()
}

func (inc *Incident) writeInspect(b *strings.Builder) {
	if len(inc.Samples) == 0 {
		b.WriteString("\nsamples.jsonl is missing or empty.\n")
		return
	}
	const maxRows = 10
	fmt.Fprintf(b, "\nSample (%d message(s)", len(inc.Samples))
	if len(inc.Samples) > maxRows {
		fmt.Fprintf(b, ", first %d shown", maxRows)
	}
	b.WriteString("):\n\n| message id | sent | receives | body |\n|---|---|---|---|\n")
	for i := range inc.Samples {
		if i == maxRows {
			break
		}
		m := &inc.Samples[i]
		sent, count := "-", "-"
		if t, ok := m.SentTime(); ok {
			sent = t.Format(time.RFC3339)
		}
		if n, ok := m.ReceiveCount(); ok {
			count = strconv.Itoa(n)
		}
		fmt.Fprintf(b, "| %s | %s | %s | `%s` |\n", m.MessageId, sent, count, cell(strings.ReplaceAll(shorten(inc.clean(m.Body), 160), "`", "'")))
	}
	if inc.Classification == nil {
		b.WriteString("\nArrivals of the sampled messages:\n\n")
		b.WriteString(inc.sampleChart())
	}
}

func (inc *Incident) writeClassify(b *strings.Builder) {
	c := inc.Classification
	if c == nil {
		b.WriteString("\nclassification.json is missing.\n")
		return
	}
	fmt.Fprintf(b, "\nOverall: **%s** over %d message(s), confidence %.2f, %d group(s).\n", c.Verdict, c.Messages, c.Confidence, len(c.Groups))
	for _, e := range c.Evidence {
		fmt.Fprintf(b, "- %s\n", e)
	}
	for i, g := range c.Groups {
		fmt.Fprintf(b, "\n### Group %s: %s — %d message(s)\n\n", firstNonEmpty(g.ID, fmt.Sprint(i+1)), g.Verdict, g.Count)
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

func intOrDash(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

// shorten keeps s on one line and at most n runes.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
