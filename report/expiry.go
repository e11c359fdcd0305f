package report

import (
	"fmt"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

// writeExpiry states when the DLQ's oldest message expires, as a step
// (contain, inspect) measured it, counted down to the report's time: the
// reader must see at once whether messages are being lost to retention.
func (inc *Incident) writeExpiry(b *strings.Builder, ev incident.Event) {
	s, _ := ev.Figures["oldest_expires_at"].(string)
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return
	}
	basis := "from the sampled messages' SentTimestamp"
	if b, _ := ev.Figures["oldest_expiry_basis"].(string); b == sqsapi.BasisCloudWatch {
		basis = "from CloudWatch's age of oldest"
	}
	if ub, _ := ev.Figures["oldest_expiry_upper_bound"].(bool); ub {
		basis += "; on a standard queue it may be sooner"
	}
	when := at.UTC().Format("2006-01-02 15:04 UTC")
	switch left := at.Sub(inc.now); {
	case inc.now.IsZero():
		fmt.Fprintf(b, "- oldest message expires: **%s** (%s)\n", when, basis)
	case left <= 0:
		fmt.Fprintf(b, "- oldest message expires: **%s**, %s before this report (%s): messages older than the retention are gone\n", when, sqsapi.Human(-left), basis)
	default:
		fmt.Fprintf(b, "- oldest message expires: **%s**, %s after this report (%s)\n", when, sqsapi.Human(left), basis)
	}
}

// writeExport names the archive and its count, and what was deleted: the
// one place the report says where the messages went when the DLQ was
// emptied by an export.
func (inc *Incident) writeExport(b *strings.Builder, ev incident.Event) {
	loc, _ := ev.Figures["location"].(string)
	n, _ := ev.Figures["exported"].(float64)
	del, _ := ev.Figures["deleted"].(float64)
	fmt.Fprintf(b, "\n%s archived to %s", plural.Of(int(n), "message"), inc.code(loc, maxValue))
	if del > 0 {
		fmt.Fprintf(b, "; %s deleted from %s once the file was durable", value(del), inc.plain(ev.Queue, maxName))
	} else {
		b.WriteString("; none deleted from the DLQ")
	}
	b.WriteString(".\n")
}
