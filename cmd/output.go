package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/charmbracelet/x/ansi"

	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// tableData is what a command shows as a table: a lipgloss table on a
// terminal, tab-separated rows (RFC 3339 times, no escape codes) when piped.
type tableData struct {
	Headers []string
	Rows    [][]string
	// Below are the columns whose cells (whole commands) move under the
	// table, numbered, when the table is wider than the terminal.
	Below []int
}

// printTable writes t to the output stream in the shape the stream wants.
// Every cell goes through untrusted.Cell on the way: cells hold message
// bodies, attributes and AWS names, and neither a terminal nor a TSV reader
// may receive their control or bidi characters, tabs or newlines.
func (d *Deps) printTable(t tableData) error {
	w := d.IO.Out
	if !d.IO.OutTTY {
		return writeTSV(w, t)
	}
	t = sanitiseTable(t)
	out, notes := d.renderTable(t, 0), ""
	// Wider than the terminal: the long commands go under the table, then
	// the columns shrink and their cells wrap — a row is never broken
	// across the borders by the terminal's own wrap.
	if width := d.IO.Width; width > 0 && lipgloss.Width(out) > width {
		if len(t.Below) > 0 {
			t, notes = cellsBelow(t, width)
			out = d.renderTable(t, 0)
		}
		if lipgloss.Width(out) > width {
			out = d.renderTable(t, width)
		}
	}
	_, err := fmt.Fprint(w, out+"\n"+notes)
	return err
}

// renderTable draws t with borders, width cells wide at most (0: as wide
// as its cells).
func (d *Deps) renderTable(t tableData, width int) string {
	r := d.IO.Renderer(d.IO.Out, true)
	header := r.NewStyle().Bold(true).Padding(0, 1)
	cell := r.NewStyle().Padding(0, 1)
	tb := table.New().
		Border(lipgloss.RoundedBorder()).
		BorderStyle(r.NewStyle().Foreground(lipgloss.Color("8"))).
		Headers(t.Headers...).
		Rows(t.Rows...).
		StyleFunc(func(row, _ int) lipgloss.Style {
			if row == table.HeaderRow {
				return header
			}
			return cell
		})
	if width > 0 {
		tb = tb.Width(width).Wrap(true)
	}
	return tb.Render()
}

// cellsBelow moves the long cells of t's Below columns under the table:
// each becomes "[n]" in its row and "[n] text" in the notes, wrapped at
// width.
func cellsBelow(t tableData, width int) (tableData, string) {
	var notes strings.Builder
	n := 0
	for _, col := range t.Below {
		for _, row := range t.Rows {
			if col >= len(row) || ansi.StringWidth(row[col]) <= 12 {
				continue
			}
			n++
			fmt.Fprintf(&notes, "%s\n", ansi.Hardwrap(fmt.Sprintf("[%d] %s", n, row[col]), width, true))
			row[col] = fmt.Sprintf("[%d] below", n)
		}
	}
	return t, notes.String()
}

// sanitiseTable returns t with every header and cell through untrusted.Cell.
func sanitiseTable(t tableData) tableData {
	out := tableData{Headers: make([]string, len(t.Headers)), Rows: make([][]string, len(t.Rows)), Below: t.Below}
	for i, h := range t.Headers {
		out.Headers[i] = untrusted.Cell(h)
	}
	for i, row := range t.Rows {
		out.Rows[i] = make([]string, len(row))
		for j, c := range row {
			out.Rows[i][j] = untrusted.Cell(c)
		}
	}
	return out
}

// writeTSV writes t as tab-separated rows, every cell through
// untrusted.Cell: a tab or newline in a value shows as \t or \n and can
// never add a column or a row.
func writeTSV(w io.Writer, t tableData) error {
	t = sanitiseTable(t)
	var b strings.Builder
	b.WriteString(strings.Join(t.Headers, "\t"))
	b.WriteByte('\n')
	for _, row := range t.Rows {
		for i, c := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(c)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// printJSON writes v as indented JSON, never coloured, escaped by
// untrusted.JSON as every JSON line mfdlq writes.
func (d *Deps) printJSON(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := d.IO.Out.Write(untrusted.JSON(b.Bytes()))
	return err
}

// jsonOutput tells whether --output json was asked for.
func (d *Deps) jsonOutput() bool { return d.Global.Output == "json" }

// infof writes progress and hints to stderr unless --quiet.
func (d *Deps) infof(format string, args ...any) {
	if d.Global.Quiet {
		return
	}
	fmt.Fprintf(d.IO.ErrOut, format+"\n", safeArgs(args)...)
}

// safeArgs passes the text of every argument through untrusted.Terminal:
// the format is ours, the arguments may quote a body, a log line or a
// name, and stderr is a terminal.
func safeArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = untrusted.Terminal(v)
		case error:
			out[i] = untrusted.Terminal(v.Error())
		case fmt.Stringer:
			out[i] = untrusted.Terminal(v.String())
		default:
			// A typed string (a verdict read back from events.jsonl) is
			// data as much as a string is.
			if rv := reflect.ValueOf(a); rv.Kind() == reflect.String {
				out[i] = untrusted.Terminal(rv.String())
			} else {
				out[i] = a
			}
		}
	}
	return out
}

// warnf writes a warning to stderr; --quiet does not silence warnings.
func (d *Deps) warnf(format string, args ...any) {
	prefix := "warning: "
	if d.IO.ErrTTY && d.IO.Color {
		prefix = d.IO.Renderer(d.IO.ErrOut, true).NewStyle().Foreground(lipgloss.Color("3")).Bold(true).Render("warning:") + " "
	}
	fmt.Fprintf(d.IO.ErrOut, prefix+format+"\n", safeArgs(args)...)
}

// announce names the account, region and queue a command is about to act on,
// before it acts. It is never silenced: at 3 a.m. the worst mistake is the
// wrong account.
func (d *Deps) announce(action string, q *sqsapi.Queue) {
	fmt.Fprintf(d.IO.ErrOut, "%s: account %s · region %s · queue %s\n", safeArgs([]any{action, orUnknown(q.Account), orUnknown(q.Region), q.Name})...)
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// nextStep prints the recommended next command on stderr.
func (d *Deps) nextStep(format string, args ...any) {
	d.infof("next: "+format, args...)
}
