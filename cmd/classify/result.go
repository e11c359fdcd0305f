package classify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	classifystep "github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/signature"
	"github.com/mfdlq/mfdlq/untrusted"
)

// verdictColor is the colour of a verdict on a terminal.
var verdictColor = map[classifystep.Verdict]string{
	classifystep.VerdictPoison: "1", classifystep.VerdictTransient: "3", classifystep.VerdictData: "4",
	classifystep.VerdictMixed: "5", classifystep.VerdictUnknown: "8",
}

// render prints the verdict per group with its evidence: a table on a
// terminal or TSV when piped, or JSON.
func (o *ClassifyOptions) render(res *classifystep.Classification) error {
	d := o.deps
	if d.JSONOutput() {
		return d.PrintJSON(res)
	}
	if !d.IO.OutTTY {
		if err := cmdutil.WriteTSV(d.IO.Out, classifyTable(res)); err != nil {
			return err
		}
		return o.renderKeys(res)
	}
	r := d.IO.Renderer(d.IO.Out, true)
	paint := func(v classifystep.Verdict) string {
		return r.NewStyle().Bold(true).Foreground(lipgloss.Color(verdictColor[v])).Render(string(v))
	}
	// Fingerprints, signatures and evidence quote bodies and attributes:
	// sanitised, and a fingerprint of thousands of keys shortened.
	t := untrusted.Terminal
	var b strings.Builder
	sampled := plural.Of(res.Messages, "message")
	if res.Look != nil && res.Look.InDLQ > 0 {
		sampled = classifystep.EvidenceOf(res).SampleText()
	}
	fmt.Fprintf(&b, "verdict: %s   %s, %s, confidence %.2f\n", paint(res.Verdict), sampled, plural.Of(len(res.Groups), "group"), res.Confidence)
	for _, line := range res.Evidence {
		fmt.Fprintf(&b, "  · %s\n", t(line))
	}
	now := d.Now()
	for i, g := range res.Groups {
		count := plural.Of(g.Count, "message")
		if n, ok := res.Estimate(&g); ok {
			count += fmt.Sprintf(" (≈%d of %d in the DLQ)", n, res.Look.InDLQ)
		}
		fmt.Fprintf(&b, "\n%s  %s  %s, confidence %.2f, %s\n", t(g.ID), paint(g.Verdict), count, g.Confidence, t(g.Pattern))
		if res.BySource {
			fmt.Fprintf(&b, "  source       %s\n", t(untrusted.Shorten(g.SourceName(), 200)))
		}
		fmt.Fprintf(&b, "  fingerprint  %s\n  error        %s\n", t(untrusted.Fingerprint(g.Fingerprint)), t(untrusted.Shorten(groupError(&g), 400)))
		fmt.Fprintf(&b, "  arrivals     %s  %s → %s\n", r.NewStyle().Foreground(lipgloss.Color(verdictColor[g.Verdict])).Render(sparkline(g.Arrivals)),
			utcTextOf(res.FirstSent, now), utcTextOf(res.LastSent, now))
		for _, e := range g.Evidence {
			fmt.Fprintf(&b, "  · %s\n", t(untrusted.Shorten(signature.Spoken(e), 400)))
		}
		// The first group's action is the next: line printed under the
		// groups: said once.
		if i > 0 || res.Verdict == classifystep.VerdictUnknown {
			fmt.Fprintf(&b, "  → %s\n", t(groupAction(&g)))
		}
	}
	if _, err := fmt.Fprint(d.IO.Out, d.FitText(b.String())); err != nil {
		return err
	}
	return o.renderKeys(res)
}

// renderKeys shows the messages that share an idempotency key (--key).
func (o *ClassifyOptions) renderKeys(res *classifystep.Classification) error {
	if res.KeyDuplicates == nil {
		return nil
	}
	return o.deps.PrintKeyDuplicates(res.KeyDuplicates)
}

// classifyTable is the piped shape: one row per group.
func classifyTable(res *classifystep.Classification) cmdutil.TableData {
	t := cmdutil.TableData{Headers: []string{"GROUP", "VERDICT", "CONFIDENCE", "COUNT", "PATTERN", "FIRST SENT", "LAST SENT", "FINGERPRINT", "SIGNATURE", "EVIDENCE", "ACTION"}}
	if res.BySource {
		t.Headers = slices.Insert(t.Headers, 1, "SOURCE")
	}
	for _, g := range res.Groups {
		row := []string{g.ID, string(g.Verdict), strconv.FormatFloat(g.Confidence, 'f', 2, 64), strconv.Itoa(g.Count), g.Pattern,
			g.FirstSent.Format(time.RFC3339), g.LastSent.Format(time.RFC3339), g.Fingerprint, g.Signature, strings.Join(g.Evidence, "; "), g.Action}
		if res.BySource {
			row = slices.Insert(row, 1, g.SourceName())
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// sparkline draws counts as one line of block characters, blank for none.
func sparkline(counts []int) string {
	blocks := []rune("▁▂▃▄▅▆▇█")
	peak := 0
	for _, n := range counts {
		peak = max(peak, n)
	}
	out := make([]rune, len(counts))
	for i, n := range counts {
		out[i] = ' '
		if n > 0 {
			out[i] = blocks[(n*len(blocks)-1)/peak]
		}
	}
	return string(out)
}

func sigOrNone(s string) string {
	if s == "" {
		return "(none: no error attribute, no logs.json)"
	}
	return s
}

// groupError is the error a person reads for g: one real error text of
// the group (sanitised and shortened by the caller) and how many others
// differ from it, else its signature with the placeholders in words.
func groupError(g *classifystep.Group) string {
	if g.Error == "" {
		return signature.Spoken(sigOrNone(g.Signature))
	}
	e := untrusted.Shorten(g.Error, 200)
	if g.DistinctErrors > 1 {
		e += fmt.Sprintf(" (and %s like it)", plural.Of(g.DistinctErrors-1, "other text"))
	}
	return e
}

// groupAction is g's action with the quoted signature replaced by a real
// error text of the group: "the dependency behind "<n>: payment-gateway
// returned <n> …"" reads as the message a person saw in the logs.
func groupAction(g *classifystep.Group) string {
	a := g.Action
	if g.Signature != "" && g.Error != "" {
		a = strings.ReplaceAll(a, strconv.Quote(g.Signature), strconv.Quote(untrusted.Shorten(g.Error, 120)))
	}
	return signature.Spoken(a)
}

// utcTextOf is utcText of t, "unknown" without one.
func utcTextOf(t *time.Time, now time.Time) string {
	if t == nil {
		return "unknown"
	}
	return cmdutil.UTCText(*t, now)
}
