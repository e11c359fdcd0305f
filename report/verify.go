package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/verify"
)

func (inc *Incident) writeVerify(b *strings.Builder) {
	v := inc.Verify
	if v == nil {
		b.WriteString("\nverify.json is missing.\n")
		return
	}
	verdict := v.Verdict
	if verdict == "" {
		verdict = verify.VerdictOf(v.Pass)
	}
	fmt.Fprintf(b, "\n- result: **%s**\n", inc.plain(string(verdict), maxName))
	fmt.Fprintf(b, "- DLQ visible at the end: %d\n", v.DLQVisible)
	if v.Moved > 0 || v.DestQueue != "" {
		fmt.Fprintf(b, "- moved by the redrive: %d, to %s\n", v.Moved, inc.plain(orDash(v.DestQueue), maxName))
	}
	fmt.Fprintf(b, "- messages that came back: %d\n", len(v.Returned))
	if v.NewInDLQ > 0 {
		fmt.Fprintf(b, "- new failures in the DLQ since the redrive, not redriven messages: %d (not this fix's verdict; classify tells whether they are the group that was fixed)\n", v.NewInDLQ)
	}
	inc.writeVerifyDests(b, v.Destinations)
	if v.Looks > 0 {
		fmt.Fprintf(b, "- looked %s over %s\n", plural.Of(v.Looks, "time"), (time.Duration(v.Waited) * time.Second).String())
	}
	nr, moreReasons := capped(len(v.Reasons), "reason")
	for _, r := range v.Reasons[:nr] {
		fmt.Fprintf(b, "- %s\n", inc.plain(r, maxValue))
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
			first = r.FirstReceive.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", inc.plain(r.MessageID, maxName), inc.plain(orDash(r.DLQMessageID), maxName),
			inc.plain(orDash(r.MatchedBy), maxName), intOrDash(r.ReceiveCount), first, r.SeenAt.UTC().Format(time.RFC3339))
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
		fmt.Fprintf(b, "| %s | %s | %d | %d | %s |\n", inc.plain(d.Queue, maxName), inc.plain(string(d.Verdict), maxName), d.Moved, d.Returned, traffic)
	}
	b.WriteString(more)
}
