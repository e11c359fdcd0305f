package cmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/untrusted"
)

// render prints each message's story, the exception highlighted on a
// terminal, then names the messages that had no line.
func (o *logsOptions) render(rep *logsearch.Result) error {
	d := o.deps
	if d.jsonOutput() {
		return d.printJSON(rep)
	}
	r := d.IO.Renderer(d.IO.Out, d.IO.OutTTY)
	head, exc, dim := styler(r.NewStyle().Bold(true)), styler(r.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)), styler(r.NewStyle().Foreground(lipgloss.Color("8")))
	if !d.IO.OutTTY || !d.IO.Color {
		// Piped: the lines exactly as logged (lipgloss would expand tabs).
		head, exc, dim = plain, plain, plain
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
		for _, l := range m.Lines {
			hit := m.Exception != "" && strings.Contains(l, m.Exception)
			l = untrusted.Terminal(l)
			if hit {
				l = exc(l)
			}
			fmt.Fprintf(&b, "  %s\n", l)
		}
		fmt.Fprintf(&b, "  exception: %s\n  signature: %s\n\n", untrusted.Terminal(orNone(m.Exception)), untrusted.Terminal(orNone(m.Signature)))
	}
	where := untrusted.Terminal("groups " + strings.Join(rep.Groups, ", "))
	if rep.LogFile != "" {
		where = untrusted.Terminal(rep.LogFile)
	}
	for _, m := range rep.Messages {
		if !m.Found {
			fmt.Fprintf(&b, "%s  not found in %s between %s and %s\n", untrusted.Terminal(m.MessageID), where,
				m.Window.From.Format(time.RFC3339), m.Window.To.Format(time.RFC3339))
		}
	}
	if _, err := fmt.Fprint(d.IO.Out, b.String()); err != nil {
		return err
	}
	d.infof("%d of %s found in %s (%s).", rep.Found, plural.Of(rep.Searched, "message"), where, rep.Method)
	if rep.Found < rep.Searched {
		d.infof("no lines for %s: try a wider window (--margin %s) or another --log-group", plural.Of(rep.Searched-rep.Found, "message"), 4*o.Margin)
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
