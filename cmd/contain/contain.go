// Package contain is `mfdlq contain`: is the problem still alive? It
// measures the DLQ and its source and pauses, caps or resumes the
// consumer's event source mapping when asked. The measures and the verdict
// are the contain step package's, imported as containstep.
package contain

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	containstep "github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/redrive/consumer"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// ContainOptions are the flags of mfdlq contain.
type ContainOptions struct {
	deps   *cmdutil.Deps
	Queue  string        // --queue: the DLQ (name, URL or ARN)
	Source string        // --source: the source queue, when discovery is not wanted
	Window time.Duration // --window: how far back the trend looks
	Sample time.Duration // --sample-for: span of the fallback sampling
	Pause  bool          // --pause-mapping
	Cap    int           // --cap-concurrency N (0: not asked)
	Resume bool          // --resume-mapping
	UUID   string        // --mapping: which mapping, when several read the source
	Yes    bool          // --yes
	DryRun bool          // --dry-run
}

// incident.ContainFile is contain's artifact in the incident directory.

// NewCmdContain is `mfdlq contain`; runF, when not nil, gets the parsed
// options instead of the run (tests).
func NewCmdContain(d *cmdutil.Deps, runF func(*ContainOptions) error) *cobra.Command {
	opts := &ContainOptions{deps: d}
	c := &cobra.Command{
		Use:   "contain --queue DLQ [--source Q] [--window 30m] [--pause-mapping | --cap-concurrency N | --resume-mapping] [--yes]",
		Short: runbook.Label(runbook.StepContain) + ": is the problem still alive?",
		Long:  docs.Long("contain") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Cap = 0
			if c.Flags().Changed("cap-concurrency") {
				n, _ := c.Flags().GetInt("cap-concurrency")
				opts.Cap = n
				if n == 0 {
					opts.Cap = -1
				}
			}
			return cmdutil.StepRunE(d, opts, opts.validate, func() string { return opts.Queue }, runF, runContain)(c, nil)
		},
	}
	f := c.Flags()
	cmdutil.AddQueueFlag(f, &opts.Queue)
	f.StringVar(&opts.Source, "source", "", "the source queue (default: the queue whose redrive policy names the DLQ)")
	f.DurationVar(&opts.Window, "window", 30*time.Minute, "how far back the trend looks (5m-336h)")
	f.DurationVar(&opts.Sample, "sample-for", 10*time.Second, "without CloudWatch data: sample the DLQ's depth over this span (1s-5m)")
	d.RenamedFlag(f, "sample", "sample-for")
	f.BoolVar(&opts.Pause, "pause-mapping", false, "disable the Lambda event source mapping reading the source")
	f.Int("cap-concurrency", 0, "set the mapping's maximum concurrency to N (2-1000)")
	f.BoolVar(&opts.Resume, "resume-mapping", false, "restore the mapping as this incident recorded it before")
	f.StringVar(&opts.UUID, "mapping", "", "the mapping's UUID, when several read the source")
	f.BoolVar(&opts.Yes, "yes", false, "change the mapping without asking")
	f.BoolVar(&opts.DryRun, "dry-run", false, "show the mapping change without making it")
	return c
}

func (o *ContainOptions) validate() error {
	switch {
	case o.Queue == "":
		return cmdutil.ErrNoQueue
	case o.Window < 5*time.Minute || o.Window > 336*time.Hour:
		return cmdutil.UsageErrorf("--window must be between 5m and 336h, got %s", o.Window)
	case o.Sample < time.Second || o.Sample > 5*time.Minute:
		return cmdutil.UsageErrorf("--sample-for must be between 1s and 5m, got %s", o.Sample)
	case o.Cap != 0 && (o.Cap < 2 || o.Cap > 1000):
		return cmdutil.UsageErrorf("--cap-concurrency must be between 2 and 1000 (Lambda's limits for SQS), got %d", max(o.Cap, 0))
	case o.actions() > 1:
		// Checked here, not with cobra's flag groups: their error surfaces
		// after the root's pre-run and would exit 1 instead of 2.
		return cmdutil.UsageErrorf("--pause-mapping, --cap-concurrency and --resume-mapping: choose one")
	case o.UUID != "" && o.action() == "":
		return cmdutil.UsageErrorf("--mapping needs --pause-mapping, --cap-concurrency or --resume-mapping")
	}
	return nil
}

func (o *ContainOptions) actions() int {
	n := 0
	for _, b := range []bool{o.Pause, o.Cap != 0, o.Resume} {
		if b {
			n++
		}
	}
	return n
}

// action is the mapping change asked for, or "".
func (o *ContainOptions) action() string {
	switch {
	case o.Pause:
		return lambdaapi.ActionPause
	case o.Cap != 0:
		return lambdaapi.ActionCap
	case o.Resume:
		return lambdaapi.ActionResume
	}
	return ""
}

func runContain(ctx context.Context, o *ContainOptions) error {
	d := o.deps
	defer d.HoldIncidentLine()() // the answer first, where it was written last
	client, dlq, err := d.ResolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	d.NoteAhead(ctx, client, dlq)()
	src, others, err := o.source(ctx, client, dlq)
	if err != nil {
		return err
	}
	mappings, err := o.mappings(ctx, src)
	if err != nil {
		return err
	}
	rep := containstep.Result{Mappings: mappings, OtherSources: others}
	if o.action() != "" {
		change, err := o.changeMapping(ctx, dlq, src, mappings)
		if err != nil {
			return err
		}
		rep.Change = change
		if !o.DryRun { // a dry run changed nothing: the list still holds
			if rep.Mappings, err = o.mappings(ctx, src); err != nil {
				return err
			}
		}
	}
	if err := o.measure(ctx, client, dlq, src, &rep); err != nil {
		return err
	}
	if err := o.record(dlq, &rep); err != nil {
		return err
	}
	if ws, err := d.Workspace(dlq.Name); err == nil {
		consumer.NoteSeen(ctx, ws, client, d.Lambda, dlq, "contain", d.Now())
	}
	if err := o.render(&rep); err != nil {
		return err
	}
	d.ShowExpiry(dlq, rep.OldestExpiry)
	d.NextStep("%s", containNext(dlq.Name, &rep))
	if rep.Alive {
		return cmdutil.ErrSilentCheckFailed
	}
	return nil
}

// containNext is what to do after contain's verdict: every verdict ends
// with a next step, the alive one most of all.
func containNext(dlq string, rep *containstep.Result) string {
	paused := rep.Change != nil && !rep.Change.DryRun && rep.Change.Action == lambdaapi.ActionPause
	switch {
	case !rep.Alive && paused:
		return fmt.Sprintf("mfdlq inspect --queue %s (the mapping stays paused until mfdlq contain --queue %s --resume-mapping)", dlq, dlq)
	case !rep.Alive:
		return "mfdlq inspect --queue " + dlq
	case rep.Change != nil && !rep.Change.DryRun:
		return fmt.Sprintf("watch the DLQ stop growing: mfdlq contain --queue %s again in a few minutes, then mfdlq inspect --queue %s", dlq, dlq)
	case len(rep.Mappings) > 0:
		return fmt.Sprintf("stop the bleeding: mfdlq contain --queue %s --pause-mapping (or --cap-concurrency N), or roll back the change that broke it", dlq)
	case rep.Source == nil:
		return fmt.Sprintf("stop what fails into it: roll back the change that broke the consumer or pause it; to measure its source, mfdlq contain --queue %s --source QUEUE", dlq)
	}
	return fmt.Sprintf("stop the bleeding: no Lambda mapping reads %s, so pause its consumer by its own means or roll back the change that broke it; then mfdlq inspect --queue %s", rep.Source.Queue, dlq)
}

// source finds the source queue: --source, else the DLQ's only source, else
// the deepest of several (the others are named).
func (o *ContainOptions) source(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue) (*sqsapi.Queue, []string, error) {
	d := o.deps
	if o.Source != "" {
		q, err := sqsapi.Resolve(ctx, c, o.Source, d.Region(ctx))
		return q, []string{}, err
	}
	srcs, err := sqsapi.SourceQueues(ctx, c, dlq)
	if err != nil {
		return nil, nil, err
	}
	if len(srcs) == 0 {
		d.Warnf("no queue's redrive policy names %s: pass --source to read the source queue", dlq.Name)
		return nil, []string{}, nil
	}
	best := srcs[0]
	for _, q := range srcs[1:] {
		if q.Depth.Visible > best.Depth.Visible {
			best = q
		}
	}
	others := []string{}
	for _, q := range srcs {
		if q != best {
			others = append(others, q.Name)
		}
	}
	if len(others) > 0 {
		d.Warnf("%d queues redrive to %s; reading the deepest, %s (pass --source for another)", len(srcs), dlq.Name, best.Name)
	}
	return best, others, nil
}
