package cmd

import (
	"context"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/browse"
	"github.com/mfdlq/mfdlq/docs"
)

// browseOptions are the flags of mfdlq browse.
type browseOptions struct {
	deps      *Deps
	Queue     string   // --queue: open on this DLQ
	ASCII     bool     // --ascii: no box or block characters
	LogGroups []string // --log-group: the consumer's logs (default: /aws/lambda/<function> of contain's mappings)
	fleet     fleetFlags
}

func newBrowseCmd(d *Deps, runF func(*browseOptions) error) *cobra.Command {
	opts := &browseOptions{deps: d}
	c := &cobra.Command{
		Use:   "browse [--queue DLQ] [--ascii] [--accounts ID,ID|all --role-name NAME | --profiles a,b]",
		Short: "The runbook as a full-screen view: fleet → DLQ → groups → messages → actions",
		Long:  docs.Long("browse") + exitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  stepRunE(d, opts, opts.validate, nil, runF, runBrowse),
	}
	f := c.Flags()
	f.StringVar(&opts.Queue, "queue", "", "open on this DLQ (name, URL or ARN) instead of the fleet")
	f.BoolVar(&opts.ASCII, "ascii", false, "no box-drawing or block characters")
	f.StringArrayVar(&opts.LogGroups, "log-group", nil, "the consumer's CloudWatch Logs group for l (repeatable; default: /aws/lambda/<function> of the DLQ's consumers)")
	opts.fleet.Bind(f)
	return c
}

func (o *browseOptions) validate() error {
	io := o.deps.IO
	switch {
	case !io.InTTY || !io.OutTTY:
		return usageErrorf("browse needs a terminal on stdin and stdout; piped, use mfdlq ls, contain, classify or inspect")
	case strings.Contains(o.deps.Global.Region, ","):
		return usageErrorf("--region %q: browse shows one region at a time; use mfdlq ls for several", o.deps.Global.Region)
	}
	if err := o.fleet.Validate(); err != nil {
		return err
	}
	for _, g := range o.LogGroups {
		if strings.TrimSpace(g) == "" {
			return usageErrorf("--log-group is empty: name a log group such as /aws/lambda/orders")
		}
	}
	return nil
}

func runBrowse(ctx context.Context, o *browseOptions) error {
	d := o.deps
	// The commands the view runs say which incident they use on their own
	// stderr; the view's terminal is the frame's alone.
	be := &browseBackend{d: d, logGroups: o.LogGroups, fleet: &o.fleet}
	errOut := d.IO.ErrOut
	d.IO.ErrOut = io.Discard
	m := browse.New(ctx, be, browse.Options{Queue: o.Queue, ASCII: o.ASCII, Color: d.IO.Color && !d.Global.NoColor && os.Getenv("NO_COLOR") == "", Now: d.Now})
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(d.IO.In), tea.WithOutput(d.IO.Out))
	_, err := p.Run()
	d.IO.ErrOut = errOut
	if !m.Wait(time.Minute) {
		d.warnf("an action of the view was still stopping after a minute; its journal lets a rerun resume")
	}
	for _, q := range sortedQueues(d.Incidents()) {
		d.infof("incident of %s: %s", q, d.Incidents()[q])
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
