// Package note is `mfdlq note`: a person's note on a DLQ (its tags), which
// colleagues' mfdlq shows. The note itself (text rules, tags, reads) is the
// note step package's, imported as notestep.
package note

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/docs"
	notestep "github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// NoteOptions are the flags of mfdlq note.
type NoteOptions struct {
	deps   *cmdutil.Deps
	Queue  string // --queue: the DLQ
	Text   string // the argument
	Clear  bool   // --clear
	DryRun bool   // --dry-run
	Yes    bool   // --yes
}

// NewCmdNote is `mfdlq note`; runF, when not nil, gets the parsed options
// instead of the run (tests).
func NewCmdNote(d *cmdutil.Deps, runF func(*NoteOptions) error) *cobra.Command {
	opts := &NoteOptions{deps: d}
	c := &cobra.Command{
		Use:   `note --queue DLQ "TEXT" | --clear`,
		Short: "Leave a note on a DLQ that colleagues see: who is on it, what is known",
		Long:  docs.Long("note") + cmdutil.ExitStatusHelp,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Text = args[0]
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if err := opts.deps.CheckIncident(opts.Queue); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runNote(c.Context(), opts)
		},
	}
	f := c.Flags()
	cmdutil.AddQueueFlag(f, &opts.Queue)
	f.BoolVar(&opts.Clear, "clear", false, "remove the note")
	f.BoolVar(&opts.DryRun, "dry-run", false, "show the note and change nothing")
	f.BoolVar(&opts.Yes, "yes", false, "write without asking")
	return c
}

func (o *NoteOptions) validate() error {
	switch {
	case o.Queue == "":
		return cmdutil.UsageErrorf("--queue is required: the DLQ's name, URL or ARN")
	case o.Clear && o.Text != "":
		return cmdutil.UsageErrorf("--clear removes the note: give no text with it")
	case o.Clear:
		return nil
	}
	if err := notestep.CheckText(o.Text); err != nil {
		return cmdutil.UsageErrorf("%s", err.Error())
	}
	return nil
}

// noteResult is note's --output json.
type noteResult struct {
	Queue    string         `json:"queue"`
	Account  string         `json:"account"`
	Region   string         `json:"region"`
	Action   string         `json:"action"`
	DryRun   bool           `json:"dry_run"`
	Note     *notestep.Note `json:"note"`
	Replaced *notestep.Note `json:"replaced"`
}

func runNote(ctx context.Context, o *NoteOptions) error {
	d := o.deps
	client, q, err := d.ResolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	prev, err := notestep.Read(ctx, client, q.URL)
	if err != nil {
		return fmt.Errorf("note %s: %w", q.Name, err)
	}
	res := noteResult{Queue: q.Name, Account: q.Account, Region: q.Region, Action: notestep.ActionSet, DryRun: o.DryRun, Replaced: prev}
	if o.Clear {
		res.Action = notestep.ActionClear
		d.Announce("clearing the note", q)
	} else {
		author, err := d.CallerARN(ctx)
		if err != nil {
			return err
		}
		res.Note = &notestep.Note{Text: o.Text, Author: author, At: d.Now().UTC().Truncate(time.Second)}
		d.Announce("writing a note", q)
		fmt.Fprintf(d.IO.ErrOut, "note: %s\n", cmdutil.NoteCell(res.Note, nil, false, d.Now()))
	}
	if prev != nil {
		fmt.Fprintf(d.IO.ErrOut, "replaces: %s\n", cmdutil.NoteCell(prev, nil, false, d.Now()))
	}
	if o.Clear && prev == nil {
		d.Infof("%s has no note: nothing to clear", q.Name)
		return o.render(&res)
	}
	if o.DryRun {
		d.Infof("dry run: the note was not %s", map[string]string{notestep.ActionSet: "written", notestep.ActionClear: "cleared"}[res.Action])
		return o.render(&res)
	}
	if err := d.Confirm(o.question(q), o.Yes); err != nil {
		return err
	}
	if o.Clear {
		err = notestep.Clear(ctx, client, q.URL)
	} else {
		err = notestep.Write(ctx, client, q.URL, *res.Note)
	}
	if err != nil {
		return fmt.Errorf("note %s: %w", q.Name, err)
	}
	if err := o.record(q, &res); err != nil {
		return err
	}
	return o.render(&res)
}

func (o *NoteOptions) question(q *sqsapi.Queue) string {
	if o.Clear {
		return fmt.Sprintf("clear the note on %s (account %s, %s)?", q.Name, cmdutil.OrUnknown(q.Account), cmdutil.OrUnknown(q.Region))
	}
	return fmt.Sprintf("write this note on %s (account %s, %s)?", q.Name, cmdutil.OrUnknown(q.Account), cmdutil.OrUnknown(q.Region))
}

// record appends the note event: the incident keeps every claim, the tags
// only the latest.
func (o *NoteOptions) record(q *sqsapi.Queue, res *noteResult) error {
	d := o.deps
	ws, err := d.Workspace(q.Name)
	if err != nil {
		return err
	}
	ev := d.Event("note", q)
	if err := ev.Set(notestep.Inputs{Clear: o.Clear, DryRun: o.DryRun}, notestep.Figures{Action: res.Action, Note: res.Note, Replaced: res.Replaced}); err != nil {
		return err
	}
	ev.Verdict = res.Action
	return ws.Append(ev)
}

func (o *NoteOptions) render(res *noteResult) error {
	d := o.deps
	if d.JSONOutput() {
		return d.PrintJSON(res)
	}
	switch {
	case res.DryRun:
	case res.Action == notestep.ActionClear && res.Replaced == nil:
	case res.Action == notestep.ActionClear:
		fmt.Fprintf(d.IO.Out, "note cleared on %s\n", untrusted.Terminal(res.Queue))
	default:
		fmt.Fprintf(d.IO.Out, "note on %s: %s\n", untrusted.Terminal(res.Queue), cmdutil.NoteCell(res.Note, nil, false, d.Now()))
	}
	return nil
}

//END
