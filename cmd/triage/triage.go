// Package triage is mfdlq triage: steps 1–3 at once, read-only, over the
// triage step (imported as triagestep), in at most twelve lines.
package triage

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	triagestep "github.com/mfdlq/mfdlq/triage"
	"github.com/mfdlq/mfdlq/untrusted"
)

// TriageOptions are the flags of mfdlq triage: the step's request, bound
// once.
type TriageOptions struct {
	deps *cmdutil.Deps
	triagestep.Request
}

// NewCmdTriage is mfdlq triage. runF, when set, is called with the
// validated options instead of the run (flag tests).
func NewCmdTriage(d *cmdutil.Deps, runF func(*TriageOptions) error) *cobra.Command {
	opts := &TriageOptions{deps: d}
	c := &cobra.Command{
		Use:   "triage --queue DLQ [--log-group NAME…] [--window 30m] [--peek 100] [--no-changes]",
		Short: "Steps 1–3 at once, read-only: alive? poison, transient or data? what next?",
		Long:  docs.Long("triage") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  cmdutil.StepRunE(d, opts, opts.validate, func() string { return opts.Queue }, runF, runTriage),
	}
	f := c.Flags()
	cmdutil.AddQueueFlag(f, &opts.Queue)
	f.DurationVar(&opts.Window, "window", triagestep.DefaultWindow, "how far back contain's trend looks (5m-336h)")
	f.DurationVar(&opts.Sample, "sample", triagestep.DefaultSample, "without CloudWatch data: sample the DLQ's depth over this span (1s-5m)")
	f.IntVar(&opts.Peek, "peek", triagestep.DefaultPeek, fmt.Sprintf("messages to peek at (1-%d), each hidden 5 s, never deleted", triagestep.MaxPeek))
	f.StringArrayVar(&opts.LogGroups, "log-group", nil, "the consumer's CloudWatch Logs group (repeatable; default: /aws/lambda/FUNCTION of the mapping reading the source)")
	f.BoolVar(&opts.NoChanges, "no-changes", false, "do not read CloudTrail for what changed")
	cmdutil.AddForceFlag(f, &opts.Force)
	return c
}

// validate checks the flags with the request's own check, the one the
// Lambda handler and the MCP tool use too.
func (o *TriageOptions) validate() error {
	if o.Queue == "" {
		return cmdutil.ErrNoQueue
	}
	// The flags hold their defaults already: an explicit 0 is an error,
	// not a default.
	if err := o.Request.Validate(); err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	return nil
}

func runTriage(ctx context.Context, o *TriageOptions) error {
	d := o.deps
	_, q, err := d.ResolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	d.Announce("triaging (read-only)", q)
	deps, err := triageDeps(ctx, d, q.Account, q.Region)
	if err != nil {
		return err
	}
	req := o.Request
	req.Queue, req.Command = q.URL, cmdutil.RecordedCommand(d.Args)
	res, err := triagestep.Run(ctx, deps, req)
	if err != nil {
		return err
	}
	if d.JSONOutput() {
		return d.PrintJSON(&res)
	}
	_, err = fmt.Fprint(d.IO.Out, strings.Join(triageLines(&res, triageWidth(d)), "\n")+"\n")
	return err
}

// triageDeps are triage's clients from the command's: every one it can
// have, so each part runs when the credentials allow it.
func triageDeps(ctx context.Context, d *cmdutil.Deps, account, region string) (triagestep.Deps, error) {
	sq, err := d.SQS(ctx)
	if err != nil {
		return triagestep.Deps{}, err
	}
	deps := triagestep.Deps{SQS: sq, Now: d.Now, Warn: d.Warnf, Workspace: func(queue string) (*incident.Workspace, error) {
		return d.Workspace(queue)
	}}
	if cw, err := d.CloudWatch(ctx); err == nil {
		deps.CloudWatch = cw
	}
	if l, err := d.Lambda(ctx); err == nil {
		deps.Lambda = l
	}
	if l, err := d.Logs(ctx); err == nil {
		deps.Logs = l
	}
	if tr, err := d.CloudTrail(ctx); err == nil {
		deps.Trail = tr
		deps.Pacer = d.TrailPacer(account, region)
	}
	return deps, nil
}

// maxTriageLines is the answer's bound on a terminal: the answer first,
// on one screen, before anything scrolls.
const maxTriageLines = 12

// defaultTriageWidth is the width of a terminal whose width cannot be
// read: the narrowest an on-call laptop's split pane is likely to be.
const defaultTriageWidth = 100

// triageWidth is the terminal's width in columns (COLUMNS, else the
// terminal's own), 0 when stdout is not a terminal: the answer's 12 lines
// are 12 rows only when no line wraps.
func triageWidth(d *cmdutil.Deps) int {
	if !d.IO.OutTTY {
		return 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 20 {
		return n
	}
	if f, ok := d.IO.Out.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w >= 20 {
			return w
		}
	}
	return defaultTriageWidth
}

// triageLines is the answer on a terminal of width columns (0: a pipe):
// at most maxTriageLines rows, each line sanitised (groups and exceptions
// quote message data) and shortened to the width; next and incident are
// said whole (they are copied) and their wrapped rows counted, and the
// lines between that do not fit are left out.
func triageLines(r *triagestep.Result, width int) []string {
	alive := "not alive"
	if r.Alive {
		alive = "ALIVE"
	}
	lines := []string{fmt.Sprintf("%s · %s · %s in %s (%d sampled)", strings.ToUpper(string(r.Verdict)), alive,
		plural.Of(int(r.Messages), "message"), r.Queue, r.Sampled)}
	const shown = 3
	for i, g := range r.Groups {
		if i == shown {
			lines = append(lines, fmt.Sprintf("  … %s more", plural.Of(len(r.Groups)-shown, "group")))
			break
		}
		lines = append(lines, fmt.Sprintf("  %-4s %-9s %5d  %s", g.ID, g.Verdict, g.Count, cmp.Or(g.Signature, "(no error signature)")))
	}
	for i, why := range r.Reasons {
		if i == 2 {
			break
		}
		lines = append(lines, "why:      "+why)
	}
	if l := r.Logs; l != nil {
		found := fmt.Sprintf("%d of %d found in %s", l.Found, l.Searched, strings.Join(r.LogGroups, ", "))
		if l.Exception != "" {
			found += " · " + l.Exception
		}
		lines = append(lines, "logs:     "+found)
	}
	if c := r.Changes; c != nil {
		unread := ""
		if len(c.Unread) > 0 {
			unread = " (could not read " + strings.Join(c.Unread, ", ") + ")"
		}
		lines = append(lines, "changes:  "+string(c.Verdict)+unread+pre(" · ", c.Nearest))
	}
	if len(r.Skipped) > 0 {
		var s []string
		for _, sk := range r.Skipped {
			s = append(s, sk.Step+" ("+sk.Reason+")")
		}
		lines = append(lines, "skipped:  "+strings.Join(s, "; "))
	}
	limit := 160
	if width > 0 {
		limit = width // bytes: never fewer than the columns they take
	}
	for i, l := range lines {
		lines[i] = untrusted.Terminal(untrusted.Shorten(l, limit))
	}
	// The next step is said whole: it is the line the engineer acts on.
	tail := []string{untrusted.Terminal(untrusted.Shorten("next:     "+r.Next, 600)), untrusted.Terminal("incident: " + r.Incident)}
	budget := maxTriageLines - rowsOf(tail, width)
	kept := lines[:0]
	for _, l := range lines {
		if n := rowsOf([]string{l}, width); n <= budget {
			kept, budget = append(kept, l), budget-n
		}
	}
	return append(kept, tail...)
}

// rowsOf is how many terminal rows lines take at width columns (one a
// line on a pipe).
func rowsOf(lines []string, width int) int {
	rows := 0
	for _, l := range lines {
		n := 1
		if width > 0 {
			n = max(1, (lipgloss.Width(l)+width-1)/width)
		}
		rows += n
	}
	return rows
}

func pre(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}
