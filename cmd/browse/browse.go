// Package browse is mfdlq browse: the full-screen view (package browse,
// imported as browsestep) over a Backend whose every step runs the command
// itself, through the Runner cmd gives it.
package browse

import (
	"context"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	browsestep "github.com/mfdlq/mfdlq/browse"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/docs"
)

// BrowseOptions are the flags of mfdlq browse.
type BrowseOptions struct {
	deps      *cmdutil.Deps
	exec      cmdutil.Runner // runs each step's command line (cmd's root)
	Queue     string         // --queue: open on this DLQ
	ASCII     bool           // --ascii: no box or block characters
	LogGroups []string       // --log-group: the consumer's logs (default: /aws/lambda/<function> of contain's mappings)
	fleet     cmdutil.FleetFlags
}

// NewCmdBrowse is mfdlq browse; exec runs each step's command line (cmd's
// root), runF, when set, is called with the validated options instead of
// the run (tests).
func NewCmdBrowse(d *cmdutil.Deps, exec cmdutil.Runner, runF func(*BrowseOptions) error) *cobra.Command {
	opts := &BrowseOptions{deps: d, exec: exec}
	c := &cobra.Command{
		Use:   "browse [--queue DLQ] [--ascii] [--accounts ID,ID|all --role-name NAME | --profiles a,b]",
		Short: "The runbook as a full-screen view: fleet → DLQ → groups → messages → actions",
		Long:  docs.Long("browse") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  cmdutil.StepRunE(d, opts, opts.validate, nil, runF, runBrowse),
	}
	f := c.Flags()
	f.StringVar(&opts.Queue, "queue", "", "open on this DLQ (name, URL or ARN) instead of the fleet")
	f.BoolVar(&opts.ASCII, "ascii", false, "no box-drawing or block characters")
	f.StringArrayVar(&opts.LogGroups, "log-group", nil, "the consumer's CloudWatch Logs group for l (repeatable; default: /aws/lambda/<function> of the DLQ's consumers)")
	opts.fleet.Bind(f)
	return c
}

func (o *BrowseOptions) validate() error {
	io := o.deps.IO
	switch {
	case !io.InTTY || !io.OutTTY:
		return cmdutil.UsageErrorf("browse needs a terminal on stdin and stdout; piped, use mfdlq ls, contain, classify or inspect")
	case strings.Contains(o.deps.Global.Region, ","):
		return cmdutil.UsageErrorf("--region %q: browse shows one region at a time; use mfdlq ls for several", o.deps.Global.Region)
	}
	if err := o.fleet.Validate(); err != nil {
		return err
	}
	for _, g := range o.LogGroups {
		if strings.TrimSpace(g) == "" {
			return cmdutil.UsageErrorf("--log-group is empty: name a log group such as /aws/lambda/orders")
		}
	}
	return nil
}

// OpenView opens the view on the fleet, as browse with no flags does:
// mfdlq alone on a terminal.
func OpenView(ctx context.Context, d *cmdutil.Deps, exec cmdutil.Runner) error {
	return runBrowse(ctx, &BrowseOptions{deps: d, exec: exec})
}

func runBrowse(ctx context.Context, o *BrowseOptions) error {
	d := o.deps
	// The commands the view runs say which incident they use on their own
	// stderr; the view's terminal is the frame's alone.
	be := NewBackend(d, o.exec, &o.fleet, o.LogGroups)
	errOut := d.IO.ErrOut
	d.IO.ErrOut = io.Discard
	m := browsestep.New(ctx, be, browsestep.Options{Queue: o.Queue, ASCII: o.ASCII, Color: d.IO.Color && !d.Global.NoColor && os.Getenv("NO_COLOR") == "", Now: d.Now})
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(d.IO.In), tea.WithOutput(d.IO.Out))
	_, err := p.Run()
	d.IO.ErrOut = errOut
	if !m.Wait(time.Minute) {
		d.Warnf("an action of the view was still stopping after a minute; its journal lets a rerun resume")
	}
	for _, q := range sortedQueues(d.Incidents()) {
		d.Infof("incident of %s: %s", q, d.Incidents()[q])
	}
	return err
}

func sortedQueues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for q := range m {
		out = append(out, q)
	}
	sort.Strings(out)
	return out
}
