package cmdutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"

	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// TableData is what a command shows as a table: a lipgloss table on a
// terminal, tab-separated rows (RFC 3339 times, no escape codes) when piped.
type TableData struct {
	Headers []string
	Rows    [][]string
	// Below names a column (1-based; 0 for none) whose long cells — a
	// whole `aws …` command, a fix in a sentence — a terminal shows under
	// the table, numbered, with the number in the cell: a row then fits
	// the terminal and the command can be copied whole. Piped rows keep
	// the cells in place.
	Below int
}

// PrintTable writes t to the output stream in the shape the stream wants.
// Every cell goes through untrusted.Cell on the way: cells hold message
// bodies, attributes and AWS names, and neither a terminal nor a TSV reader
// may receive their control or bidi characters, tabs or newlines.
func (d *Deps) PrintTable(t TableData) error {
	w := d.IO.Out
	if !d.IO.OutTTY {
		return WriteTSV(w, t)
	}
	t = sanitiseTable(t)
	width := d.TermWidth()
	t, notes := moveBelow(t)
	r := d.IO.Renderer(w, true)
	out := renderTable(r, t, 0)
	if width > 0 && lipgloss.Width(out) > width {
		// Too wide for the terminal: lipgloss shrinks the widest columns
		// and wraps their cells, so a row is never broken by the terminal.
		out = renderTable(r, t, width)
	}
	var b strings.Builder
	b.WriteString(out + "\n")
	for i, n := range notes {
		b.WriteString(NoteText(fmt.Sprintf("%d. ", i+1), n, width) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// renderTable draws t, sized to width when width > 0 (lipgloss would
// otherwise widen a narrow table to fill it).
func renderTable(r *lipgloss.Renderer, t TableData, width int) string {
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

// FitText wraps each line of s wider than the terminal, its continuation
// under its own indent plus two, so that a line of prose (an evidence of
// 400 characters, a log line) never runs past the edge. Piped, or with the
// width unknown, s is as it was. Escape codes are kept whole.
func (d *Deps) FitText(s string) string {
	if !d.IO.OutTTY {
		return s
	}
	return fitLines(s, d.TermWidth())
}

// fitLines is FitText's wrapping at width (none when width is 0). A line
// holding a carriage return (a progress bar's redraw) is left whole.
func fitLines(s string, width int) string {
	if width <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if lipgloss.Width(l) <= width || strings.Contains(l, "\r") {
			continue
		}
		body := strings.TrimLeft(l, " ")
		lead := len(l) - len(body)
		if width-lead-2 < 20 {
			lead = 0
		}
		parts := strings.Split(ansi.Wrap(body, width-lead-2, ""), "\n")
		for j := range parts {
			pad := lead
			if j > 0 {
				pad += 2
			}
			parts[j] = strings.Repeat(" ", pad) + strings.TrimRight(parts[j], " ")
		}
		lines[i] = strings.Join(parts, "\n")
	}
	return strings.Join(lines, "\n")
}

// belowOver is the length from which a cell of the Below column goes under
// the table: a short fix ("-", "none") stays in its row.
const belowOver = 24

// moveBelow takes the long cells of t's Below column out of the rows and
// returns them in order; each cell says the number to read under the table.
func moveBelow(t TableData) (TableData, []string) {
	col := t.Below - 1
	if col < 0 {
		return t, nil
	}
	var notes []string
	for _, row := range t.Rows {
		if col < len(row) && utf8.RuneCountInString(row[col]) > belowOver {
			notes = append(notes, row[col])
			row[col] = fmt.Sprintf("see %d below", len(notes))
		}
	}
	return t, notes
}

// NoteText is one numbered note under a table, wrapped to width. A shell
// command (aws …, mfdlq …) is broken with a trailing " \\" on each line
// but the last, so that the lines pasted into a shell are one command.
func NoteText(num, n string, width int) string {
	indent := strings.Repeat(" ", len(num))
	if !strings.HasPrefix(n, "aws ") && !strings.HasPrefix(n, "mfdlq ") || width <= 0 || lipgloss.Width(num+n) <= width {
		return WrapText(num+n, width, indent)
	}
	lines := strings.Split(WrapText(num+n, width-2, indent), "\n")
	return strings.Join(lines, " \\\n")
}

// WrapText breaks s at spaces into lines of at most width columns (no limit
// when width is 0), each continuation line starting with indent. A command
// broken this way reads as words; a word longer than a line is cut, never
// left to overflow.
func WrapText(s string, width int, indent string) string {
	if width <= 0 || lipgloss.Width(s) <= width {
		return s
	}
	if lipgloss.Width(indent) >= width/2 {
		indent = ""
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		prefix := ""
		if len(lines) > 0 {
			prefix = indent
		}
		switch {
		case line == "":
			line = prefix + word
		case lipgloss.Width(line+" "+word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = indent + word
		}
		for lipgloss.Width(line) > width {
			cut := cutColumns(line, width)
			if cut == "" || cut == indent {
				_, n := utf8.DecodeRuneInString(line[len(indent):])
				cut = line[:len(indent)+n]
			}
			lines = append(lines, cut)
			line = indent + strings.TrimPrefix(line, cut)
		}
	}
	return strings.Join(append(lines, line), "\n")
}

// cutColumns is the longest prefix of s at most width columns wide.
func cutColumns(s string, width int) string {
	w := 0
	for i, r := range s {
		w += lipgloss.Width(string(r))
		if w > width {
			return s[:i]
		}
	}
	return s
}

// TermWidth is the width of the terminal stdout is: its size when stdout is
// a terminal, else COLUMNS when MFDLQ_FORCE_TTY=1 forces the terminal
// shapes (tests), else 0: unknown, nothing is sized.
func (d *Deps) TermWidth() int {
	return widthOf(d.IO.Out)
}

// errWidth is TermWidth for stderr, where hints and warnings go.
func (d *Deps) errWidth() int {
	return widthOf(d.IO.ErrOut)
}

func widthOf(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	// COLUMNS only with the terminal shapes forced: a COLUMNS exported by
	// a shell would otherwise size what a test or a pipe compares exactly.
	if os.Getenv("MFDLQ_FORCE_TTY") != "1" {
		return 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

// sanitiseTable returns t with every header and cell through untrusted.Cell.
func sanitiseTable(t TableData) TableData {
	out := TableData{Headers: make([]string, len(t.Headers)), Rows: make([][]string, len(t.Rows)), Below: t.Below}
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

// WriteTSV writes t as tab-separated rows, every cell through
// untrusted.Cell: a tab or newline in a value shows as \t or \n and can
// never add a column or a row.
func WriteTSV(w io.Writer, t TableData) error {
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

// PrintJSON writes v as indented JSON, never coloured, escaped by
// untrusted.JSON as every JSON line mfdlq writes.
func (d *Deps) PrintJSON(v any) error {
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

// JSONOutput tells whether --output json was asked for.
func (d *Deps) JSONOutput() bool { return d.Global.Output == "json" }

// Infof writes progress and hints to stderr unless --quiet.
func (d *Deps) Infof(format string, args ...any) {
	if d.Global.Quiet {
		return
	}
	d.SayErr(fmt.Sprintf(format, SafeArgs(args)...))
}

// SayErr writes one line of hint or warning to stderr, wrapped at a
// terminal's width under a two-space indent: a warning of 300 characters
// reads as a paragraph, not as a line the terminal breaks mid-word.
func (d *Deps) SayErr(line string) {
	if d.IO.ErrTTY {
		line = fitLines(line, d.errWidth())
	}
	fmt.Fprintln(d.IO.ErrOut, line)
}

// SafeArgs passes the text of every argument through untrusted.Terminal:
// the format is ours, the arguments may quote a body, a log line or a
// name, and stderr is a terminal.
func SafeArgs(args []any) []any {
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

// Warnf writes a warning to stderr; --quiet does not silence warnings.
func (d *Deps) Warnf(format string, args ...any) {
	prefix := "warning: "
	if d.IO.ErrTTY && d.IO.Color {
		prefix = d.IO.Renderer(d.IO.ErrOut, true).NewStyle().Foreground(lipgloss.Color("3")).Bold(true).Render("warning:") + " "
	}
	d.SayErr(fmt.Sprintf(prefix+format, SafeArgs(args)...))
}

// Announce names the account, region and queue a command is about to act on,
// before it acts. It is never silenced: at 3 a.m. the worst mistake is the
// wrong account.
func (d *Deps) Announce(action string, q *sqsapi.Queue) {
	fmt.Fprintf(d.IO.ErrOut, "%s: account %s · region %s · queue %s\n", SafeArgs([]any{action, OrUnknown(q.Account), OrUnknown(q.Region), q.Name})...)
}

// OrUnknown is s, or "(unknown)" for an account or region not known yet:
// a line that names where mfdlq acts never shows a blank there.
func OrUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// HoldIncidentLine keeps the "incident:" line of the run until the
// function it returns is called (deferred by an answer command's run
// function): the answer comes first, where its files went last, and a
// path of 150 characters no longer stands above the verdict.
func (d *Deps) HoldIncidentLine() func() {
	held := []string{}
	d.heldIncident = &held
	return func() {
		d.heldIncident = nil
		home, _ := os.UserHomeDir()
		for _, l := range held {
			if home != "" && len(home) > 1 {
				// ~/.local/state/mfdlq/incidents/…: the shell expands it.
				l = strings.Replace(l, "incident: "+home+string(os.PathSeparator), "incident: ~"+string(os.PathSeparator), 1)
			}
			d.Infof("%s", l)
		}
	}
}

// NextStep prints the recommended next command on stderr.
func (d *Deps) NextStep(format string, args ...any) {
	d.Infof("next: "+format, args...)
}
