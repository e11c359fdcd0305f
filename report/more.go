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
	fmt.Fprintf(b, "\nSearched %d message(s) in %s (%s): found %d.\n", l.Searched, inc.plain(orDash(where), maxValue), inc.plain(orDash(string(l.Method)), maxName), l.Found)
	msgs := append([]LogsMessage(nil), l.Messages...)
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].MessageID < msgs[j].MessageID })
	var notFound []string
	shown := 0
	for _, m := range msgs {
		if !m.Found {
			notFound = append(notFound, m.MessageID)
			continue
		}
		if shown++; shown > maxItems {
			continue
		}
		fmt.Fprintf(b, "\n### %s\n\n", inc.plain(m.MessageID, maxName))
		fmt.Fprintf(b, "- where: %s / %s, %s\n", inc.code(m.LogGroup, maxName), inc.code(m.LogStream, maxName), inc.plain(orDash(m.Timestamp), maxName))
		if m.Exception != "" {
			fmt.Fprintf(b, "- exception: %s\n", inc.code(m.Exception, maxValue))
		}
		if m.Signature != "" {
			fmt.Fprintf(b, "- signature: %s\n", inc.code(m.Signature, maxValue))
		}
		if len(m.Lines) == 0 {
			continue
		}
		lines := m.Lines
		if len(lines) > maxLogLines {
			lines = append(lines[:maxLogLines:maxLogLines], fmt.Sprintf("… %d more line(s) in logs.json", len(m.Lines)-maxLogLines))
		}
		b.WriteString("\n")
		b.WriteString(inc.block(expandTabs(lines), maxLogLine))
	}
	if shown > maxItems {
		fmt.Fprintf(b, "\n… %d more message(s) with log lines in logs.json\n", shown-maxItems)
	}
	if len(notFound) > 0 {
		parts := make([]string, len(notFound))
		for i, id := range notFound {
			parts[i] = inc.plain(id, maxName)
		}
		fmt.Fprintf(b, "\nNo log lines found for: %s\n", joinBounded(parts, ", ", maxLine/2))
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
		len(inc.Journal), len(runs), first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339), inc.plain(orDash(strings.Join(sortedKeys(dests), ", ")), maxValue))
	b.WriteString("| operation | distinct messages |\n|---|---|\n")
	keys := sortedKeys(ops)
	n, more := capped(len(keys), "operation(s)")
	for _, op := range keys[:n] {
		fmt.Fprintf(b, "| %s | %d |\n", inc.plain(op, maxName), len(ops[op]))
	}
	b.WriteString(more)
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
	fmt.Fprintf(b, "\n- result: **%s**\n", inc.plain(firstNonEmpty(v.Verdict, map[bool]string{true: "pass", false: "fail"}[v.Pass]), maxName))
	fmt.Fprintf(b, "- DLQ visible at the end: %s\n", intOrDash(v.DLQVisible))
	if v.Moved != nil {
		fmt.Fprintf(b, "- moved by the redrive: %d, to %s\n", *v.Moved, inc.plain(orDash(v.DestQueue), maxName))
	}
	fmt.Fprintf(b, "- messages that came back: %d\n", len(v.Returned))
	if v.Looks > 0 {
		fmt.Fprintf(b, "- looked %d time(s) over %s\n", v.Looks, (time.Duration(v.Waited) * time.Second).String())
	}
	nr, moreReasons := capped(len(v.Reasons), "reason(s)")
	for _, r := range v.Reasons[:nr] {
		fmt.Fprintf(b, "- %s\n", inc.plain(r, maxValue))
	}
	b.WriteString(moreReasons)
	nm, moreReturned := capped(len(v.Returned), "returned message(s)")
	for _, r := range v.Returned[:nm] {
		fmt.Fprintf(b, "  - returned: %s\n", inc.plain(kvList(r), maxValue))
	}
	b.WriteString(moreReturned)
}

func (inc *Incident) writeCheck(b *strings.Builder) {
	c := inc.Check
	if c == nil {
		b.WriteString("\ncheck.json is missing.\n")
		return
	}
	b.WriteString("\n| status | finding | fix |\n|---|---|---|\n")
	n, more := capped(len(c.Findings), "finding(s)")
	for _, f := range c.Findings[:n] {
		fmt.Fprintf(b, "| %s | %s | %s |\n", inc.plain(f.Status, maxName), inc.plain(firstNonEmpty(f.Title, f.Message, f.ID), maxValue), inc.plain(orDash(f.Fix), maxValue))
	}
	b.WriteString(more)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// expandTabs keeps a log line's indentation (a stack trace reads by it) as
// spaces, and drops the line ending a line may carry.
func expandTabs(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(strings.ReplaceAll(strings.TrimRight(l, "\r\n"), "\t", "    "), " ")
	}
	return out
}
