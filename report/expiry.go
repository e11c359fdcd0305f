package report

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// writeExpiry states when the DLQ's oldest message expires, as a step
// (contain, inspect) measured it, counted down to the report's time: the
// reader must see at once whether messages are being lost to retention.
func (inc *Incident) writeExpiry(b *strings.Builder, ev incident.Event) {
	var f sqsapi.ExpiryFigures
	_ = ev.DecodeFigures(&f)
	if f.OldestExpiresAt == nil || f.OldestExpiresAt.IsZero() {
		return
	}
	at := *f.OldestExpiresAt
	basis := "from the sampled messages' SentTimestamp"
	if f.OldestExpiryBasis == sqsapi.BasisCloudWatch {
		basis = "from CloudWatch's age of oldest"
	}
	if f.OldestExpiryUpperBound {
		basis += "; on a standard queue it may be sooner"
	}
	when := at.UTC().Format("2006-01-02 15:04 UTC")
	switch left := at.Sub(inc.now); {
	case inc.now.IsZero():
		fmt.Fprintf(b, "\nThe oldest message expires at **%s** (%s).\n", when, basis)
	case left <= 0:
		fmt.Fprintf(b, "\nThe oldest message expired at **%s**, %s before this report (%s): messages older than the retention are gone.\n", when, sqsapi.Human(-left), basis)
	default:
		fmt.Fprintf(b, "\nThe oldest message expires at **%s**, %s after this report (%s).\n", when, sqsapi.Human(left), basis)
	}
}

// writeExport names the archive and its count, and what was deleted: the
// one place the report says where the messages went when the DLQ was
// emptied by an export.
func (inc *Incident) writeExport(b *strings.Builder, ev incident.Event) {
	var f archive.Figures
	_ = ev.DecodeFigures(&f)
	fmt.Fprintf(b, "\n%s archived to %s", plural.Of(f.Exported, "message"), inc.code(f.Location, maxValue))
	if f.Deleted > 0 {
		fmt.Fprintf(b, "; %d deleted from %s once the file was durable", f.Deleted, inc.plain(ev.Queue, maxName))
	} else {
		b.WriteString("; none deleted from the DLQ")
	}
	b.WriteString(".\n")
}
