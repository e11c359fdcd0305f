package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mfdlq/mfdlq/incident"
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
func (inc *Incident) writeLogs(b *strings.Builder, _ incident.Event) {
	l := inc.Logs
	if l == nil {
		b.WriteString("\nlogs.json is missing.\n")
		return
	}
	where := strings.Join(l.Groups, ", ")
	if l.LogFile != "" {
		where = l.LogFile
	}
	fmt.Fprintf(b, "\nSearched %s in %s (%s): found %d.\n", plural.Of(l.Searched, "message"), inc.plain(orDash(where), maxValue), inc.plain(orDash(string(l.Method)), maxName), l.Found)
	groups, notFound := bySignature(l.Messages)
	n, moreGroups := capped(len(groups), "signature")
	for _, g := range groups[:n] {
		m := g[0]
		// The heading is the first message's own exception: the
		// signature that groups them holds placeholders (<n>) no reader
		// should have to decode.
		sig := "no exception recognised"
		switch {
		case m.Exception != "":
			sig = inc.code(m.Exception, maxValue)
		case m.Signature != "":
			sig = inc.code(m.Signature, maxValue)
		}
		fmt.Fprintf(b, "\n### %s — %s\n\n", sig, plural.Of(len(g), "message"))
		ids := make([]string, len(g))
		for i, r := range g {
			ids[i] = inc.code(r.MessageID, maxName)
		}
		fmt.Fprintf(b, "- %s: %s\n", plural.Noun(len(g), "message"), joinBounded(ids, ", ", maxLine/2))
		fmt.Fprintf(b, "- excerpt of %s: %s / %s, %s\n", inc.code(m.MessageID, maxName), inc.code(m.LogGroup, maxName), inc.code(m.LogStream, maxName), inc.plain(orDash(inc.timestampWords(m.Timestamp)), maxName))
		if len(m.Lines) == 0 {
			continue
		}
		lines := m.Lines
		if len(lines) > maxLogLines {
			lines = append(lines[:maxLogLines:maxLogLines], fmt.Sprintf("… %s more in logs.json", plural.Of(len(m.Lines)-maxLogLines, "line")))
		}
		b.WriteString("\n")
		b.WriteString(inc.block(expandTabs(lines), maxLogLine))
	}
	b.WriteString(moreGroups)
	if len(notFound) > 0 {
		parts := make([]string, len(notFound))
		for i, id := range notFound {
			parts[i] = inc.plain(id, maxName)
		}
		fmt.Fprintf(b, "\nNo log lines found for: %s\n", joinBounded(parts, ", ", maxLine/2))
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

// expandTabs keeps a log line's indentation (a stack trace reads by it) as
// spaces, and drops the line ending a line may carry.
func expandTabs(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(strings.ReplaceAll(strings.TrimRight(l, "\r\n"), "\t", "    "), " ")
	}
	return out
}
