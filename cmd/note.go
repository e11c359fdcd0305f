package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// noteOptions are the flags of mfdlq note.
type noteOptions struct {
	deps   *Deps
	Queue  string // --queue: the DLQ
	Text   string // the argument
	Clear  bool   // --clear
	DryRun bool   // --dry-run
	Yes    bool   // --yes
}

func newNoteCmd(d *Deps, runF func(*noteOptions) error) *cobra.Command {
	opts := &noteOptions{deps: d}
	c := &cobra.Command{
		Use:   `note --queue DLQ "TEXT" | --clear`,
		Short: "Leave a note on a DLQ that colleagues see: who is on it, what is known",
		Long:  docs.Long("note") + exitStatusHelp,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Text = args[0]
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if err := opts.deps.checkIncident(opts.Queue); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runNote(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Queue, "queue", "", "the DLQ: name, URL or ARN (required)")
	f.BoolVar(&opts.Clear, "clear", false, "remove the note")
	f.BoolVar(&opts.DryRun, "dry-run", false, "show the note and change nothing")
	f.BoolVar(&opts.Yes, "yes", false, "write without asking")
	return c
}

func (o *noteOptions) validate() error {
	switch {
	case o.Queue == "":
		return usageErrorf("--queue is required: the DLQ's name, URL or ARN")
	case o.Clear && o.Text != "":
		return usageErrorf("--clear removes the note: give no text with it")
	case o.Clear:
		return nil
	}
	if err := note.CheckText(o.Text); err != nil {
		return usageErrorf("%s", err.Error())
	}
	return nil
}

// noteResult is note's --output json.
type noteResult struct {
	Queue    string     `json:"queue"`
	Account  string     `json:"account"`
	Region   string     `json:"region"`
	Action   string     `json:"action"`
	DryRun   bool       `json:"dry_run"`
	Note     *note.Note `json:"note"`
	Replaced *note.Note `json:"replaced"`
}

func runNote(ctx context.Context, o *noteOptions) error {
	d := o.deps
	client, q, err := d.resolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	prev, err := note.Read(ctx, client, q.URL)
	if err != nil {
		return fmt.Errorf("note %s: %w", q.Name, err)
	}
	res := noteResult{Queue: q.Name, Account: q.Account, Region: q.Region, Action: note.ActionSet, DryRun: o.DryRun, Replaced: prev}
	if o.Clear {
		res.Action = note.ActionClear
		d.announce("clearing the note", q)
	} else {
		author, err := d.callerARN(ctx)
		if err != nil {
			return err
		}
		res.Note = &note.Note{Text: o.Text, Author: author, At: d.Now().UTC().Truncate(time.Second)}
		d.announce("writing a note", q)
		fmt.Fprintf(d.IO.ErrOut, "note: %s\n", noteCell(res.Note, nil, false, d.Now()))
	}
	if prev != nil {
		fmt.Fprintf(d.IO.ErrOut, "replaces: %s\n", noteCell(prev, nil, false, d.Now()))
	}
	if o.Clear && prev == nil {
		d.infof("%s has no note: nothing to clear", q.Name)
		return o.render(&res)
	}
	if o.DryRun {
		d.infof("dry run: the note was not %s", map[string]string{note.ActionSet: "written", note.ActionClear: "cleared"}[res.Action])
		return o.render(&res)
	}
	if err := d.confirm(o.question(q), o.Yes); err != nil {
		return err
	}
	if o.Clear {
		err = note.Clear(ctx, client, q.URL)
	} else {
		err = note.Write(ctx, client, q.URL, *res.Note)
	}
	if err != nil {
		return fmt.Errorf("note %s: %w", q.Name, err)
	}
	if err := o.record(q, &res); err != nil {
		return err
	}
	return o.render(&res)
}

func (o *noteOptions) question(q *sqsapi.Queue) string {
	if o.Clear {
		return fmt.Sprintf("clear the note on %s (account %s, %s)?", q.Name, orUnknown(q.Account), orUnknown(q.Region))
	}
	return fmt.Sprintf("write this note on %s (account %s, %s)?", q.Name, orUnknown(q.Account), orUnknown(q.Region))
}

// record appends the note event: the incident keeps every claim, the tags
// only the latest.
func (o *noteOptions) record(q *sqsapi.Queue, res *noteResult) error {
	d := o.deps
	ws, err := d.Workspace(q.Name)
	if err != nil {
		return err
	}
	ev := d.Event("note", q)
	if err := ev.Set(note.Inputs{Clear: o.Clear, DryRun: o.DryRun}, note.Figures{Action: res.Action, Note: res.Note, Replaced: res.Replaced}); err != nil {
		return err
	}
	ev.Verdict = res.Action
	return ws.Append(ev)
}

func (o *noteOptions) render(res *noteResult) error {
	d := o.deps
	if d.jsonOutput() {
		return d.printJSON(res)
	}
	switch {
	case res.DryRun:
	case res.Action == note.ActionClear && res.Replaced == nil:
	case res.Action == note.ActionClear:
		fmt.Fprintf(d.IO.Out, "note cleared on %s\n", untrusted.Terminal(res.Queue))
	default:
		fmt.Fprintf(d.IO.Out, "note on %s: %s\n", untrusted.Terminal(res.Queue), noteCell(res.Note, nil, false, d.Now()))
	}
	return nil
}

// callerARN is who the credentials are (STS GetCallerIdentity), as
// CloudTrail would name them: a note's author, a redrive's operator.
func (d *Deps) callerARN(ctx context.Context) (string, error) {
	c, err := d.STS(ctx)
	if err != nil {
		return "", err
	}
	id, err := provenance.WhoAmI(ctx, c)
	return id.ARN, err
}

// showNote says the note on q, if any, on stderr: inspect, contain and
// (for the lead to wire) redrive's plan show it before they act. A note
// that cannot be read is said too; it never stops the step.
func (d *Deps) showNote(ctx context.Context, c note.Tags, q *sqsapi.Queue) *note.Note {
	return d.noteAhead(ctx, c, q)()
}

// noteAhead starts reading q's note now and returns what shows it (as
// showNote does) once the lines before it are out: the read overlaps the
// command's other reads, the output keeps its order.
func (d *Deps) noteAhead(ctx context.Context, c note.Tags, q *sqsapi.Queue) func() *note.Note {
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
		d.warnf("the note on %s is unknown: %v", q.Name, err)
	case n != nil:
		fmt.Fprintf(d.IO.ErrOut, "note on %s: %s\n", untrusted.Terminal(q.Name), strings.TrimSpace(noteCell(n, nil, false, d.Now())))
	}
	return n
}
