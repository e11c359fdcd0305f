package logs

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/signature"
	"github.com/mfdlq/mfdlq/untrusted"
)

// render prints each message's story, the exception highlighted on a
// terminal, then names the messages that had no line.
func (o *LogsOptions) render(rep *logsearch.Result) error {
	d := o.deps
	if d.JSONOutput() {
		return d.PrintJSON(rep)
	}
	r := d.IO.Renderer(d.IO.Out, d.IO.OutTTY)
	head, exc, dim := styler(r.NewStyle().Bold(true)), styler(r.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)), styler(r.NewStyle().Foreground(lipgloss.Color("8")))
	if !d.IO.OutTTY || !d.IO.Color {
		// Piped: the lines exactly as logged (lipgloss would expand tabs).
		head, exc, dim = plain, plain, plain
	}
	// A terminal says the signature's placeholders in words; piped, the
	// signature is the key classify groups by, as it is.
	sig := plain
	if d.IO.OutTTY {
		sig = signature.Spoken
	}
	var b strings.Builder
	for _, m := range rep.Messages {
		if !m.Found {
			continue
		}
		// Log lines, streams and exceptions are written by whoever wrote the
		// consumer's input: sanitised before any styling is added.
		where := untrusted.Terminal(strings.TrimSpace(m.LogGroup + " " + m.LogStream + " " + m.Timestamp))
		fmt.Fprintf(&b, "%s  %s\n", head(untrusted.Terminal(m.MessageID)), dim(where))
		for _, run := range foldRepeats(m.Lines) {
			for _, l := range m.Lines[run.from : run.from+run.size] {
				hit := m.Exception != "" && strings.Contains(l, m.Exception)
				l = untrusted.Terminal(l)
				if hit {
					l = exc(l)
				}
				fmt.Fprintf(&b, "  %s\n", l)
			}
			if run.times > 1 {
				fmt.Fprintf(&b, "  %s\n", dim(repeatText(run)))
			}
		}
		fmt.Fprintf(&b, "  exception: %s\n  signature: %s\n\n", untrusted.Terminal(orNone(m.Exception)), untrusted.Terminal(sig(orNone(m.Signature))))
	}
	where := untrusted.Terminal("groups " + strings.Join(rep.Groups, ", "))
	if rep.LogFile != "" {
		where = untrusted.Terminal(rep.LogFile)
	}
	stamp := func(t time.Time) string { return t.Format(time.RFC3339) }
	if d.IO.OutTTY { // a person's time; piped keeps RFC 3339
		stamp = func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }
	}
	for _, m := range rep.Messages {
		if !m.Found {
			fmt.Fprintf(&b, "%s  not found in %s between %s and %s\n", untrusted.Terminal(m.MessageID), where,
				stamp(m.Range.From), stamp(m.Range.To))
		}
	}
	if _, err := fmt.Fprint(d.IO.Out, d.FitText(b.String())); err != nil {
		return err
	}
	d.Infof("%d of %s found in %s (%s).", rep.Found, plural.Of(rep.Searched, "message"), where, rep.Method)
	if rep.Found < rep.Searched {
		d.Infof("no lines for %s: try a wider window (--margin %s) or another --log-group", plural.Of(rep.Searched-rep.Found, "message"), 4*o.Margin)
	}
	return nil
}

func styler(s lipgloss.Style) func(string) string {
	return func(t string) string { return s.Render(t) }
}

func plain(s string) string { return s }

func orNone(s string) string {
	if s == "" {
		return "(none recognised)"
	}
	return s
}

// linesRun is a block of a message's log lines and how many times it
// comes in a row: a consumer that logs the same stack trace at each of its
// attempts writes it three times, and a person reads it once.
type linesRun struct {
	from, size, times int
}

// repeatText says a folded run.
func repeatText(run linesRun) string {
	what := "the line above"
	if run.size > 1 {
		what = fmt.Sprintf("the %d lines above", run.size)
	}
	return fmt.Sprintf("… %s again %s (only ids, times and numbers differ)", what, plural.Of(run.times-1, "more time"))
}

// foldRepeats splits lines into runs, each a block and its count of
// consecutive repeats, longest saving first. Lines are compared with their
// digits and hex ids masked: a request ID, a timestamp or a duration
// differs between attempts, the trace does not. Lines are bounded
// (logsearch keeps a window per message), so the cubic search is small.
func foldRepeats(lines []string) []linesRun {
	keys := make([]string, len(lines))
	for i, l := range lines {
		keys[i] = maskedNumbers.ReplaceAllString(l, "#")
	}
	same := func(a, b, n int) bool {
		for k := range n {
			if keys[a+k] != keys[b+k] {
				return false
			}
		}
		return true
	}
	var runs []linesRun
	for i := 0; i < len(lines); {
		best := linesRun{from: i, size: 1, times: 1}
		for size := 1; i+2*size <= len(lines); size++ {
			times := 1
			for i+(times+1)*size <= len(lines) && same(i, i+times*size, size) {
				times++
			}
			if times > 1 && size*(times-1) > best.size*(best.times-1) {
				best = linesRun{from: i, size: size, times: times}
			}
		}
		runs = append(runs, best)
		i += best.size * best.times
	}
	return runs
}

// maskedNumbers are the tokens that differ between two attempts' log
// lines: anything hex-like holding a digit (request IDs, times, counts).
var maskedNumbers = regexp.MustCompile(`[0-9A-Fa-f]*[0-9][0-9A-Fa-f]*`)
