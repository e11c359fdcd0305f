package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func (inc *Incident) writeInspect(b *strings.Builder, ev incident.Event) {
	var f sqsapi.InspectFigures
	var in sqsapi.InspectInputs
	_, _ = ev.DecodeFigures(&f), ev.DecodeInputs(&in)
	if len(ev.Figures) > 0 {
		fmt.Fprintf(b, "\nPeeked at %d of the %d visible messages (%d in flight, %d delayed) in %s; each stayed hidden %s and none was deleted.\n",
			f.Sampled, f.Visible, f.InFlight, f.Delayed, plural.Of(f.Receives, "receive"), human(time.Duration(in.Visibility)*time.Second))
	}
	if len(inc.Samples) == 0 {
		b.WriteString("\nsamples.jsonl is missing or empty.\n")
		return
	}
	// A few short excerpts tell what the messages look like; the bodies
	// themselves stay in samples.jsonl.
	const maxRows = 3
	fmt.Fprintf(b, "\nSample (%s", plural.Of(len(inc.Samples), "message"))
	if len(inc.Samples) > maxRows {
		fmt.Fprintf(b, ", first %d shown, bodies cut to %d characters; samples.jsonl holds them", maxRows, maxExcerpt)
	}
	b.WriteString("):\n\n| message id | sent | receives | body (excerpt) |\n|---|---|---|---|\n")
	for i := range inc.Samples {
		if i == maxRows {
			break
		}
		m := &inc.Samples[i]
		sent, count := "-", "-"
		if t, ok := m.SentTime(); ok {
			sent = inc.at(t)
		}
		if n, ok := m.ReceiveCount(); ok {
			count = strconv.Itoa(n)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", inc.plain(m.MessageId, maxName), sent, count, inc.codeCell(m.Body, maxExcerpt))
	}
	if inc.Classification == nil {
		b.WriteString("\nArrivals of the sampled messages:\n\n")
		b.WriteString(arrivalChart(inc.sentTimes(time.Time{}, time.Time{})))
	}
}
