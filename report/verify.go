package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/verify"
)

func (inc *Incident) writeVerify(b *strings.Builder, _ incident.Event) {
	v := inc.Verify
	if v == nil {
		b.WriteString("\nverify.json is missing.\n")
		return
	}
	// The verdict, what came back and what is left are the first screen's
	// verify row: here how verify looked and why it judged so.
	b.WriteString("\n")
	if v.NewInDLQ > 0 {
		fmt.Fprintf(b, "- new failures in the DLQ since the redrive, not redriven messages: %d (not this fix's verdict; classify tells whether they are the group that was fixed)\n", v.NewInDLQ)
	}
	inc.writeVerifyDests(b, v.Destinations)
	if v.Looks > 0 {
		fmt.Fprintf(b, "- looked %s over %s\n", plural.Of(v.Looks, "time"), human(time.Duration(v.Waited)*time.Second))
	}
	said := inc.verifyText()
	nr, moreReasons := capped(len(v.Reasons), "reason")
	for _, r := range v.Reasons[:nr] {
		if r := inc.plain(r, maxValue); !strings.Contains(said, r) {
			// A reason the first screen's verify row says already is not
			// said twice.
			fmt.Fprintf(b, "- %s\n", r)
		}
	}
	b.WriteString(moreReasons)
	if len(v.Returned) == 0 {
		return
	}
	b.WriteString("\n| came back | was DLQ message | matched by | receives | first received | seen |\n|---|---|---|---|---|---|\n")
	nm, moreReturned := capped(len(v.Returned), "returned message")
	for _, r := range v.Returned[:nm] {
		first := "-"
		if r.FirstReceive != nil {
			first = inc.at(*r.FirstReceive)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", inc.plain(r.MessageID, maxName), inc.plain(orDash(r.DLQMessageID), maxName),
			inc.plain(orDash(r.MatchedBy), maxName), intOrDash(r.ReceiveCount), first, inc.at(r.SeenAt))
	}
	b.WriteString(moreReturned)
}

// writeVerifyDests lists each destination's verdict when the move had
// several (a shared DLQ's messages back to their own sources); one
// destination is the lines above.
func (inc *Incident) writeVerifyDests(b *strings.Builder, ds []verify.DestResult) {
	if len(ds) < 2 {
		return
	}
	b.WriteString("\n| destination | verdict | moved | came back | traffic |\n|---|---|---|---|---|\n")
	n, more := capped(len(ds), "destination")
	for _, d := range ds[:n] {
		traffic := "quiet (must drain)"
		if d.Live {
			traffic = "live (judged by metrics)"
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %s |\n", inc.plain(d.Queue, maxName), inc.plain(d.Verdict.Word(), maxName), d.Moved, d.Returned, traffic)
	}
	b.WriteString(more)
}
