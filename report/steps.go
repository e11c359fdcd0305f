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
		inc.writeEvent(b, ev)
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
func (inc *Incident) writeEvent(b *strings.Builder, ev incident.Event) {
	fmt.Fprintf(b, "- ran: %s\n", ev.Time.UTC().Format(time.RFC3339))
	if len(ev.Command) > 0 {
		fmt.Fprintf(b, "- command: %s\n", inc.code(ShellJoin(ev.Command), maxCommand))
	}
	if ev.Verdict != "" {
		fmt.Fprintf(b, "- verdict: **%s**\n", inc.plain(ev.Verdict, maxName))
	}
	if s := kvList(ev.Inputs); s != "" {
		fmt.Fprintf(b, "- inputs: %s\n", inc.plain(s, maxValue))
	}
	if s := kvList(ev.Figures); s != "" {
		fmt.Fprintf(b, "- figures: %s\n", inc.plain(s, maxValue))
	}
	if ev.Artifact != "" {
		fmt.Fprintf(b, "- artifact: %s\n", inc.code(ev.Artifact, maxName))
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
	inc.row(b, "verdict", c.Verdict)
	inc.row(b, "DLQ visible / in flight", intOrDash(c.DLQ.Visible)+" / "+intOrDash(c.DLQ.InFlight))
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
	inc.row(b, "DLQ trend", trend)
	if s := c.Source; s != nil {
		inc.row(b, "source queue", orDash(s.Queue))
		inc.row(b, "source visible / in flight", intOrDash(s.Visible)+" / "+intOrDash(s.InFlight))
		inc.row(b, "source age of oldest message", seconds(s.AgeOfOldestSeconds)+" (normal "+seconds(s.NormalAgeSeconds)+")")
	} else {
		inc.row(b, "source queue", "none found")
	}
	nm, moreMappings := capped(len(c.Mappings), "mapping(s)")
	for i, m := range c.Mappings[:nm] {
		inc.row(b, fmt.Sprintf("Lambda mapping %d", i+1), kvList(m))
	}
	if len(c.Change) > 0 {
		inc.row(b, "mapping change", kvList(c.Change))
	}
	b.WriteString(moreMappings)
	nr, moreReasons := capped(len(c.Reasons), "reason(s)")
	for _, r := range c.Reasons[:nr] {
		fmt.Fprintf(b, "\n- %s", inc.plain(r, maxValue))
	}
	if len(c.Reasons) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(moreReasons)
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
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", inc.plain(m.MessageId, maxName), sent, count, inc.codeCell(m.Body, maxBody))
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
	fmt.Fprintf(b, "\nOverall: **%s** over %d message(s), confidence %.2f, %d group(s).\n", inc.plain(c.Verdict, maxName), c.Messages, c.Confidence, len(c.Groups))
	ne, moreEvidence := capped(len(c.Evidence), "evidence line(s)")
	for _, e := range c.Evidence[:ne] {
		fmt.Fprintf(b, "- %s\n", inc.plain(e, maxValue))
	}
	b.WriteString(moreEvidence)
	ng, moreGroups := capped(len(c.Groups), "group(s)")
	for i, g := range c.Groups[:ng] {
		fmt.Fprintf(b, "\n### Group %s: %s — %d message(s)\n\n", inc.plain(firstNonEmpty(g.ID, fmt.Sprint(i+1)), maxName), inc.plain(g.Verdict, maxName), g.Count)
		if g.Pattern != "" {
			fmt.Fprintf(b, "- arrival pattern: %s\n", inc.plain(g.Pattern, maxName))
		}
		if g.Error != "" {
			fmt.Fprintf(b, "- error: %s\n", inc.code(g.Error, maxValue))
		}
		if g.Fingerprint != "" {
			fmt.Fprintf(b, "- fingerprint: %s\n", inc.fingerprint(g.Fingerprint))
		}
		if g.Signature != "" {
			fmt.Fprintf(b, "- error signature: %s\n", inc.code(g.Signature, maxValue))
		}
		if !g.FirstSent.IsZero() && !g.LastSent.IsZero() {
			fmt.Fprintf(b, "- sent: %s → %s (%s)\n", g.FirstSent.UTC().Format(time.RFC3339), g.LastSent.UTC().Format(time.RFC3339), g.LastSent.Sub(g.FirstSent).Round(time.Second))
		}
		if len(g.ReceiveCounts) > 0 {
			fmt.Fprintf(b, "- receive counts: %s\n", inc.plain(countsList(g.ReceiveCounts), maxValue))
		}
		ne, more := capped(len(g.Evidence), "evidence line(s)")
		for _, e := range g.Evidence[:ne] {
			fmt.Fprintf(b, "- evidence: %s\n", inc.plain(e, maxValue))
		}
		b.WriteString(more)
		if g.Action != "" {
			fmt.Fprintf(b, "- action: %s\n", inc.plain(g.Action, maxValue))
		}
		b.WriteString("\nArrivals:\n\n")
		b.WriteString(inc.groupChart(g))
	}
	b.WriteString(moreGroups)
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
