package cmdutil

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// A note on a DLQ (queue tags, the note package) as every command shows
// it: ls's column, note's own lines, inspect's and contain's line before
// they act, redrive's plan.

// redriveText is a running redrive on one line, sanitised: who, where,
// since when, and the alarms it waits on.
func redriveText(h *lease.Holder) string { return "redrive running: " + untrusted.Cell(h.Describe()) }

// NoteCell is a note in a table cell: its text sanitised (anyone who may
// tag the queue wrote it), then who (the session or user at the end of
// the author's ARN) and when. On a terminal the text is cut to keep the
// row readable; piped rows carry it whole (at most 256 bytes).
func NoteCell(n *note.Note, r *lease.Holder, tty bool, now time.Time) string {
	cell := noteOnly(n, tty)
	if r == nil {
		return cell
	}
	if cell == "-" {
		return redriveText(r)
	}
	return cell + " · " + redriveText(r)
}

func noteOnly(n *note.Note, tty bool) string {
	if n == nil {
		return "-"
	}
	text := untrusted.Cell(n.Text)
	if n.Unreadable {
		text = "(not written by mfdlq) " + text
	}
	if tty && len([]rune(text)) > 48 {
		text = string([]rune(text)[:47]) + "…"
	}
	who := untrusted.Cell(n.Who())
	if n.At.IsZero() {
		return text + " (" + who + ")"
	}
	when := n.At.UTC().Format(time.RFC3339)
	if tty {
		when = n.At.UTC().Format("2006-01-02 15:04 UTC")
	}
	return text + " (" + who + ", " + when + ")"
}

// CallerARN is who the credentials are (STS GetCallerIdentity), as
// CloudTrail would name them: a note's author, a redrive's operator.
func (d *Deps) CallerARN(ctx context.Context) (string, error) {
	c, err := d.STS(ctx)
	if err != nil {
		return "", err
	}
	id, err := provenance.WhoAmI(ctx, c)
	return id.ARN, err
}

// NoteAhead starts reading q's note now and returns what says it on
// stderr, if there is one, once the lines before it are out: the read
// overlaps the command's other reads, the output keeps its order. inspect,
// contain and redrive's plan show it before they act (inspect and contain
// call what it returns at once). A note that cannot be read is said too;
// it never stops the step.
func (d *Deps) NoteAhead(ctx context.Context, c note.Tags, q *sqsapi.Queue) func() *note.Note {
	var n *note.Note
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		n, err = note.Read(ctx, c, q.URL)
	}()
	return func() *note.Note {
		<-done
		return d.sayNote(q, n, err)
	}
}

// sayNote says q's note, or that it is unknown.
func (d *Deps) sayNote(q *sqsapi.Queue, n *note.Note, err error) *note.Note {
	switch {
	case err != nil:
		d.Warnf("the note on %s is unknown: %v", q.Name, err)
	case n != nil:
		fmt.Fprintf(d.IO.ErrOut, "note on %s: %s\n", untrusted.Terminal(q.Name), strings.TrimSpace(NoteCell(n, nil, false, d.Now())))
	}
	return n
}
