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
	f := figuresOf[sqsapi.ExpiryFigures](ev)
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
	f := figuresOf[archive.Figures](ev)
	fmt.Fprintf(b, "\n%s archived to %s", plural.Of(f.Exported, "message"), inc.code(f.Location, maxValue))
	durable := "the file was durable"
	if f.PartCount > 1 {
		fmt.Fprintf(b, " in %d parts", f.PartCount)
		durable = "each part was uploaded and read back"
	}
	if f.Deleted > 0 {
		fmt.Fprintf(b, "; %d deleted from %s once %s", f.Deleted, inc.plain(ev.Queue, maxName), durable)
	} else {
		b.WriteString("; none deleted from the DLQ")
	}
	b.WriteString(".\n")
	inc.writeParts(b, f)
}

// maxReportParts bounds the parts the report lists; export.json lists
// them all.
const maxReportParts = 10

// writeParts lists an export's parts, the first maxReportParts of them:
// where each is and what it holds, so that a reader can find every message
// and check each object.
func (inc *Incident) writeParts(b *strings.Builder, f archive.Figures) {
	if f.PartCount <= 1 || len(f.Parts) == 0 {
		return
	}
	b.WriteString("\n| Part | Messages | Deleted | Size | SHA-256 |\n|---|---:|---:|---:|---|\n")
	for i, p := range f.Parts[:min(len(f.Parts), maxReportParts)] {
		fmt.Fprintf(b, "| %d %s | %d | %d | %s | %s |\n", i+1, inc.codeCell(p.Location, maxValue), p.Messages, p.Deleted, size(p.Bytes), inc.codeCell(p.SHA256, maxName))
	}
	if more := f.PartCount - min(len(f.Parts), maxReportParts); more > 0 {
		fmt.Fprintf(b, "\n… and %d more (%s lists every part).\n", more, incident.ExportFile)
	}
}
