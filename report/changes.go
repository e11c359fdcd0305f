package report

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/changes"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
)

// changesTitle is the section of mfdlq changes.
const changesTitle = "What changed around the failure"

// writeChanges is the section "What changed around the failure": the
// window, the nearest change, the kept events (related first), the noise
// as counts, the alarms and the chart of the consumer's metrics beside the
// DLQ's arrivals. Every name, user and reason came from CloudTrail or
// CloudWatch: each is encoded (and redacted) on its way in.
func (inc *Incident) writeChanges(b *strings.Builder, _ incident.Event) {
	c := inc.Changes
	if c == nil {
		b.WriteString("\nchanges.json is missing.\n")
		return
	}
	fmt.Fprintf(b, "\nWindow %s – %s (%s, margin %s), %s's event history in %s.\n",
		inc.at(c.Range.From), inc.at(c.Range.To), inc.plain(c.Range.Source, maxName), inc.plain(durationWords(c.Range.Margin), maxName),
		inc.plain(orDash(c.Account), maxName), inc.plain(orDash(c.Region), maxName))
	// The nearest change is the first screen's row, said there only.
	inc.writeChangeEvents(b, c)
	if len(c.Alarms) > 0 {
		b.WriteString("\n| time | alarm | metric | watches |\n|---|---|---|---|\n")
		n, more := capped(len(c.Alarms), "alarm")
		for _, a := range c.Alarms[:n] {
			watches := "dependency " + a.Dependency
			if a.Own {
				watches = "this queue or its consumer"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", inc.at(a.Time), inc.codeCell(a.Name, maxName),
				inc.plain(orDash(strings.TrimSpace(a.Namespace+" "+a.Metric)), maxName), inc.plain(watches, maxName))
		}
		b.WriteString(more)
	}
	if lines := c.Chart(); len(lines) > 0 {
		b.WriteString("\nThe consumer's metrics beside the DLQ's arrivals:\n\n")
		b.WriteString(inc.block(inc.foldQuietRows(lines), maxLine/2))
	}
	for _, u := range c.Unread {
		fmt.Fprintf(b, "\n- could not read %s: %s\n", inc.plain(u.Source, maxName), inc.plain(u.Reason, maxValue))
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(b, "- %s\n", inc.plain(w, maxValue))
	}
}

// foldQuietRows folds a chart's runs of rows where every figure is 0 into
// one line (a 30-minute window is mostly quiet rows before the burst), and
// says its footer's duration and time in words. The chart's first line is
// its heading, its last the footer; a row is "HH:MM:SS UTC" then figures.
func (inc *Incident) foldQuietRows(lines []string) []string {
	if len(lines) < 3 {
		return lines
	}
	quiet := func(l string) bool {
		f := strings.Fields(l)
		if len(f) < 3 || f[1] != "UTC" {
			return false
		}
		for _, v := range f[2:] {
			if v != "0" {
				return false
			}
		}
		return true
	}
	out := []string{lines[0]}
	body := lines[1 : len(lines)-1]
	for i := 0; i < len(body); {
		j := i
		for j < len(body) && quiet(body[j]) {
			j++
		}
		if j-i >= 2 {
			out = append(out, fmt.Sprintf("%s – %s  all 0 (%d rows)", strings.Fields(body[i])[0], strings.Fields(body[j-1])[0]+" UTC", j-i))
			i = j
			continue
		}
		if j == i {
			j++
		}
		out = append(out, body[i:j]...)
		i = j
	}
	foot := lines[len(lines)-1]
	if m := chartFooter.FindStringSubmatch(foot); m != nil {
		if t, err := time.Parse(time.RFC3339, m[3]); err == nil {
			foot = m[1] + durationWords(m[2]) + " from " + inc.at(t)
		}
	}
	return append(out, foot)
}

// chartFooter is changes' chart footer: "12 rows of 2m31s from 2026-…Z".
var chartFooter = regexp.MustCompile(`^(\d+ rows? of )(\S+) from (\S+)$`)

func (inc *Incident) writeChangeEvents(b *strings.Builder, c *changes.Result) {
	if len(c.Events) == 0 {
		fmt.Fprintf(b, "\nNo change related to the queue and no deploy in the window (%s read).\n", plural.Of(c.Read, "write event"))
	} else {
		b.WriteString("\n| time | kind | event | resource | user | why |\n|---|---|---|---|---|---|\n")
		n, more := capped(len(c.Events), "event")
		for _, e := range c.Events[:n] {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", inc.at(e.Time), inc.plain(string(e.Relation), maxName),
				inc.codeCell(e.Name, maxName), inc.codeCell(e.Resource, maxName), inc.codeCell(e.User, maxName), inc.plain(e.Reason, maxValue))
		}
		b.WriteString(more)
	}
	if c.Dropped > 0 {
		noise := append([]changes.Noise(nil), c.Noise...)
		sort.SliceStable(noise, func(i, j int) bool { return noise[i].Count > noise[j].Count })
		parts := make([]string, 0, len(noise))
		for _, n := range noise {
			parts = append(parts, fmt.Sprintf("%d %s", n.Count, inc.plain(n.Reason, maxName)))
		}
		fmt.Fprintf(b, "\nDropped as noise: %s.\n", joinBounded(parts, "; ", maxLine/2))
	}
}

// writeChangeSummary is the summary table's row naming the nearest change
// (written among the table's rows, so it stays in the table).
func (inc *Incident) writeChangeSummary(b *strings.Builder) {
	if c := inc.Changes; c != nil && c.Evidence != "" {
		fmt.Fprintf(b, "| nearest change | %s |\n", inc.plain(c.Evidence, maxValue))
	}
}
