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
	fmt.Fprintf(b, "\n- result: **%s**\n", verdict)
	fmt.Fprintf(b, "- DLQ visible at the end: %d\n", v.DLQVisible)
	if v.Moved > 0 || v.DestQueue != "" {
		fmt.Fprintf(b, "- moved by the redrive: %d, to %s\n", v.Moved, orDash(v.DestQueue))
	}
	fmt.Fprintf(b, "- messages that came back: %d\n", len(v.Returned))
	if v.Looks > 0 {
		fmt.Fprintf(b, "- looked %s over %s\n", plural.Of(v.Looks, "time"), (time.Duration(v.Waited) * time.Second).String())
	}
	for _, r := range v.Reasons {
		fmt.Fprintf(b, "- %s\n", r)
	}
	for _, r := range v.Returned {
		fmt.Fprintf(b, "  - returned: %s\n", kvList(asMap(r)))
	}
}
