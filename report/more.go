package report

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// maxLogLines bounds each message's excerpt: the exception and the top of
// its stack trace, not the whole stream.
const maxLogLines = 12

func (inc *Incident) writeLogs(b *strings.Builder) {
	l := inc.Logs
	if l == nil {
		b.WriteString("\nlogs.json is missing.\n")
		return
	}
	where := strings.Join(l.Groups, ", ")
	if l.LogFile != "" {
		where = l.LogFile
	}
	fmt.Fprintf(b, "\nSearched %d message(s) in %s (%s): found %d.\n", l.Searched, orDash(where), orDash(string(l.Method)), l.Found)
	msgs := append([]LogsMessage(nil), l.Messages...)
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].MessageID < msgs[j].MessageID })
	var notFound []string
	for _, m := range msgs {
		if !m.Found {
			notFound = append(notFound, m.MessageID)
			continue
		}
		fmt.Fprintf(b, "\n### %s\n\n", m.MessageID)
		fmt.Fprintf(b, "- where: `%s` / `%s`, %s\n", m.LogGroup, m.LogStream, orDash(m.Timestamp))
		if m.Exception != "" {
			fmt.Fprintf(b, "- exception: `%s`\n", inc.clean(m.Exception))
		}
		if m.Signature != "" {
			fmt.Fprintf(b, "- signature: `%s`\n", m.Signature)
		}
		if len(m.Lines) == 0 {
			continue
		}
		b.WriteString("\n```\n")
		for i, line := range m.Lines {
			if i == maxLogLines {
				fmt.Fprintf(b, "… %d more line(s) in logs.json\n", len(m.Lines)-maxLogLines)
				break
			}
			b.WriteString(shortenLine(inc.clean(line), 200) + "\n")
		}
		b.WriteString("```\n")
	}
	if len(notFound) > 0 {
		fmt.Fprintf(b, "\nNo log lines found for: %s\n", strings.Join(notFound, ", "))
	}
}

func (inc *Incident) writeRedrive(b *strings.Builder) {
	if len(inc.Journal) == 0 {
		b.WriteString("\nredrive-journal.jsonl is missing or empty.\n")
		return
	}
	ops := map[string]map[string]bool{}
	runs := map[string]bool{}
	dests := map[string]bool{}
	for _, e := range inc.Journal {
		if ops[e.Op] == nil {
			ops[e.Op] = map[string]bool{}
		}
		ops[e.Op][e.DLQMessageID] = true
		runs[e.Run] = true
		if e.DestQueue != "" {
			dests[e.DestQueue] = true
		}
	}
	first, last := inc.Journal[0].Time, inc.Journal[len(inc.Journal)-1].Time
	fmt.Fprintf(b, "\nJournal: %d entr(ies) over %d run(s), %s → %s, destination %s.\n\n",
		len(inc.Journal), len(runs), first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339), orDash(strings.Join(sortedKeys(dests), ", ")))
	b.WriteString("| operation | distinct messages |\n|---|---|\n")
	for _, op := range sortedKeys(ops) {
		fmt.Fprintf(b, "| %s | %d |\n", op, len(ops[op]))
	}
	if sent, deleted := ops["sent"], ops["deleted"]; len(sent) > 0 {
		pending := 0
		for id := range sent {
			if !deleted[id] {
				pending++
			}
		}
		if pending > 0 {
			fmt.Fprintf(b, "\n%d message(s) sent but not yet deleted from the DLQ: running the same redrive again deletes them without sending again.\n", pending)
		}
	}
}

func (inc *Incident) writeVerify(b *strings.Builder) {
	v := inc.Verify
	if v == nil {
		b.WriteString("\nverify.json is missing.\n")
		return
	}
	fmt.Fprintf(b, "\n- result: **%s**\n", firstNonEmpty(v.Verdict, map[bool]string{true: "pass", false: "fail"}[v.Pass]))
	fmt.Fprintf(b, "- DLQ visible at the end: %s\n", intOrDash(v.DLQVisible))
	if v.Moved != nil {
		fmt.Fprintf(b, "- moved by the redrive: %d, to %s\n", *v.Moved, orDash(v.DestQueue))
	}
	fmt.Fprintf(b, "- messages that came back: %d\n", len(v.Returned))
	if v.Looks > 0 {
		fmt.Fprintf(b, "- looked %d time(s) over %s\n", v.Looks, (time.Duration(v.Waited) * time.Second).String())
	}
	for _, r := range v.Reasons {
		fmt.Fprintf(b, "- %s\n", r)
	}
	for _, r := range v.Returned {
		fmt.Fprintf(b, "  - returned: %s\n", kvList(r))
	}
}

func (inc *Incident) writeCheck(b *strings.Builder) {
	c := inc.Check
	if c == nil {
		b.WriteString("\ncheck.json is missing.\n")
		return
	}
	b.WriteString("\n| status | finding | fix |\n|---|---|---|\n")
	for _, f := range c.Findings {
		fmt.Fprintf(b, "| %s | %s | %s |\n", f.Status, cell(firstNonEmpty(f.Title, f.Message, f.ID)), cell(orDash(f.Fix)))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// shortenLine keeps a log line's indentation (a stack trace reads by it) and
// cuts it at n runes.
func shortenLine(s string, n int) string {
	s = strings.TrimRight(strings.NewReplacer("\r", "", "\n", " ", "\t", "    ").Replace(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
