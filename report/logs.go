package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mfdlq/mfdlq/logsearch"
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
	msgs := append([]logsearch.Record(nil), l.Messages...)
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
