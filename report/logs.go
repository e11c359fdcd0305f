package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/plural"
)

// maxLogLines bounds each message's excerpt: the exception and the top of
// its stack trace, not the whole stream.
const maxLogLines = 12

// writeLogs groups the messages found by error signature: one excerpt per
// signature (its first message's, by MessageId), with how many messages
// share it and which. A hundred messages failing the same way are one
// story, told once.
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
	fmt.Fprintf(b, "\nSearched %s in %s (%s): found %d.\n", plural.Of(l.Searched, "message"), orDash(where), orDash(string(l.Method)), l.Found)
	groups, notFound := bySignature(l.Messages)
	for _, g := range groups {
		m := g[0]
		sig := "no exception recognised"
		if m.Signature != "" {
			sig = "`" + m.Signature + "`"
		}
		fmt.Fprintf(b, "\n### %s — %s\n\n", sig, plural.Of(len(g), "message"))
		ids := make([]string, len(g))
		for i, r := range g {
			ids[i] = "`" + r.MessageID + "`"
		}
		fmt.Fprintf(b, "- %s: %s\n", plural.Noun(len(g), "message"), strings.Join(ids, ", "))
		fmt.Fprintf(b, "- excerpt of `%s`: `%s` / `%s`, %s\n", m.MessageID, m.LogGroup, m.LogStream, orDash(m.Timestamp))
		if m.Exception != "" {
			fmt.Fprintf(b, "- exception: `%s`\n", inc.clean(m.Exception))
		}
		if len(m.Lines) == 0 {
			continue
		}
		b.WriteString("\n```\n")
		for i, line := range m.Lines {
			if i == maxLogLines {
				fmt.Fprintf(b, "… %s more in logs.json\n", plural.Of(len(m.Lines)-maxLogLines, "line"))
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

// bySignature groups the found messages by signature, most messages first
// (then by signature), each group ordered by MessageId; and lists the
// MessageIds not found.
func bySignature(msgs []logsearch.Record) (groups [][]logsearch.Record, notFound []string) {
	sorted := append([]logsearch.Record(nil), msgs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].MessageID < sorted[j].MessageID })
	at := map[string]int{}
	for _, m := range sorted {
		if !m.Found {
			notFound = append(notFound, m.MessageID)
			continue
		}
		i, ok := at[m.Signature]
		if !ok {
			i = len(groups)
			at[m.Signature] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], m)
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if len(groups[i]) != len(groups[j]) {
			return len(groups[i]) > len(groups[j])
		}
		return groups[i][0].Signature < groups[j][0].Signature
	})
	return groups, notFound
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
