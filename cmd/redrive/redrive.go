package redrive

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/health"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/runbook"
)

// RedriveOptions are the flags of mfdlq redrive: the redrivestep.Request the
// step resolves (each of its flags bound once, into it), and the flags
// that are the command's own.
type RedriveOptions struct {
	deps *cmdutil.Deps
	redrivestep.Request
	Queue  string // --queue: the DLQ (name, URL or ARN)
	DryRun bool   // --dry-run
	Yes    bool   // --yes
	// Verbose (--verbose) prints the whole plan on a terminal too.
	Verbose bool
	notify  cmdutil.NotifyFlag
	transformFlags
	dedupeFlags

	whenOKTimes bool // --for or --give-up given
}

func NewCmdRedrive(d *cmdutil.Deps, runF func(*RedriveOptions) error) *cobra.Command {
	opts := &RedriveOptions{deps: d}
	c := &cobra.Command{
		Use:     "redrive --queue DLQ [--to QUEUE] --rate N|max [--max N] [--filter JQ] [--dry-run] [--yes]",
		Short:   runbook.Label(runbook.StepRedrive) + ": move messages back at a bounded rate, never losing one",
		Long:    docs.Long("redrive") + cmdutil.ExitStatusHelp,
		Example: docs.Example("redrive"),
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.whenOKTimes = c.Flags().Changed("for") || c.Flags().Changed("give-up")
			if err := opts.validate(); err != nil {
				return err
			}
			if err := opts.deps.CheckIncident(opts.Queue); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return whenOKExitError(runRedrive(c.Context(), opts))
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Queue, "queue", "", "the DLQ: name, URL or ARN (required)")
	f.StringVar(&opts.To, "to", "", "destination: a queue, lambda:FUNCTION, sns:TOPIC or events:BUS (default: the DLQ's one source queue, else the one origin its messages name)")
	f.StringVar(&opts.RateText, "rate", "", "messages per second from 0.01 to 10000, or max (required; --native: 1-500)")
	f.IntVar(&opts.Workers, "workers", 0, "fix the batches in flight (receive→send→delete pipelines); default: adaptive, up to --max-workers")
	f.IntVar(&opts.MaxWorkers, "max-workers", redrivestep.DefaultMaxWorkers, "cap of the adaptive batches in flight (a SIGKILL duplicates at most 10 per batch in flight)")
	f.IntVar(&opts.Max, "max", 0, "move at most N messages (default: the backlog present at start)")
	f.StringVar(&opts.Filter, "filter", "", "jq expression over the message (Body parsed when JSON); moves those it is true for")
	f.StringVar(&opts.SentAfter, "sent-after", "", "only messages sent after this time (RFC 3339)")
	f.StringVar(&opts.SentBefore, "sent-before", "", "only messages sent before this time (RFC 3339)")
	f.StringVar(&opts.MaxAge, "max-age", "", "only messages sent within the last DURATION, e.g. 6h (not with --sent-after)")
	f.StringVar(&opts.Group, "group", "", "only messages of this classification.json group")
	f.BoolVar(&opts.Keep, "keep", false, "copy instead of move: nothing is deleted from the DLQ")
	f.BoolVar(&opts.NoStamp, "no-stamp", false, "send the messages without the provenance attribute mfdlq-redrive (incident, run, DLQ MessageId, attempt)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print the plan and change nothing")
	f.BoolVar(&opts.Verbose, "verbose", false, "the whole plan on a terminal too (concurrency, lease, provenance, operator, idempotency, canary proof); piped, it always is")
	cmdutil.IntFlagUnset(f, &opts.Canary, "canary", "move N first and check none come back (default 10 to the DLQ's own source, else 0)")
	f.DurationVar(&opts.CanaryWait, "canary-wait", 0, "how long to wait after the canary (default: source visibility timeout × maxReceiveCount + 10s)")
	f.Int64Var(&opts.MaxBacklog, "max-backlog", 0, "slow down while the destination holds more visible messages than this (0: off)")
	f.IntVar(&opts.MaxReturned, "max-returned", 10, "halt when this many moved messages came back to the DLQ (0: off)")
	f.Int32Var(&opts.Visibility, "visibility", 30, "seconds a received message stays hidden while it is moved (10-43200)")
	f.BoolVar(&opts.Yes, "yes", false, "do not ask for confirmation")
	f.BoolVar(&opts.Native, "native", false, "let SQS move them (StartMessageMoveTask); no selection, no --max, no --keep")
	f.BoolVar(&opts.Force, "force", false, "redrive although the incident says poison without a fix, or still alive")
	f.StringVar(&opts.Fixed, "fixed", "", "record what was fixed (an incident \"fix\" step) before the move")
	f.BoolVar(&opts.TakeOver, "take-over", false, "take the DLQ's lease from another redrive that died (asks first)")
	f.StringVar(&opts.FromFile, "from-file", "", "move the messages of an export (FILE or s3://BUCKET/KEY, see mfdlq export) instead of a DLQ's: to --to, else each to its recorded source queue")
	f.StringSliceVar(&opts.AllowAccounts, "allow-account", nil, "with --from-file: an account outside yours that the file's lines may go to (repeat, or a comma list)")
	f.StringVar(&opts.Lease, "lease", "", "keep the one-run-at-a-time lease in S3 (s3://BUCKET/PREFIX, conditional writes) instead of the DLQ's tag")
	f.StringVar(&opts.IdempotencyTable, "idempotency-table", "", "the consumer's idempotency store (a DynamoDB table; default: the one its Lambda environment names)")
	f.DurationVar(&opts.IdempotencyWindow, "idempotency-window", 0, "how long the consumer's idempotency records live (default: estimated from the store's items)")
	f.StringVar(&opts.BeyondWindow, "beyond-window", "", "messages that failed longer ago than the idempotency window: move (anyway) or keep (in the DLQ); default: refuse")
	f.StringSliceVar(&opts.WhenOK, "when-ok", nil, "wait until these CloudWatch alarms (metric or composite; ALARM[,ALARM…]) have been OK for --for before the move, and pause it while one is not (docs/redrive-when-ok.md)")
	f.DurationVar(&opts.For, "for", health.DefaultFor, "with --when-ok: how long every alarm must have been OK without a break")
	f.DurationVar(&opts.GiveUp, "give-up", health.DefaultGiveUp, "with --when-ok: end a wait that lasts longer (exit 3, nothing moved)")
	c.MarkFlagsMutuallyExclusive("native", "when-ok")
	c.MarkFlagsMutuallyExclusive("from-file", "when-ok")
	c.MarkFlagsMutuallyExclusive("native", "keep")
	c.MarkFlagsMutuallyExclusive("native", "filter")
	c.MarkFlagsMutuallyExclusive("native", "group")
	c.MarkFlagsMutuallyExclusive("native", "max")
	c.MarkFlagsMutuallyExclusive("native", "max-age")
	c.MarkFlagsMutuallyExclusive("lease", "from-file")
	opts.notify.Bind(f)
	opts.transformFlags.add(c)
	opts.dedupeFlags.add(c)
	cmdutil.GroupFlags(c, redriveFlagGroups)
	return c
}

// redriveFlagGroups are redrive's help groups, most runs' flags first;
// the rest are advanced.
var redriveFlagGroups = []cmdutil.FlagGroup{
	{Title: "Selection", Flags: []string{"queue", "from-file", "group", "filter", "sent-after", "sent-before", "max-age", "max"}},
	{Title: "Pace", Flags: []string{"rate", "when-ok", "for", "give-up", "max-backlog"}},
	{Title: "Safety", Flags: []string{"dry-run", "yes", "fixed", "canary", "canary-wait", "max-returned", "force"}},
	{Title: "Destination", Flags: []string{"to", "keep", "allow-account"}},
}

func (o *RedriveOptions) validate() error {
	var err error
	if o.TransformProgram, o.TransformOrigin, err = o.transformFlags.program(); err != nil {
		return err
	}
	if o.DedupeKey, err = o.dedupeFlags.key(o.Native); err != nil {
		return err
	}
	for _, parse := range []func() error{o.validateSource, o.parseRate, o.parseTarget, o.notify.Validate, o.parseWhenOK} {
		if err := parse(); err != nil {
			return err
		}
	}
	if err := o.Request.Validate(); err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	if err := o.Selection.Parse(o.deps.Now()); err != nil {
		return cmdutil.UsageErrorf("%s", strings.TrimSpace(err.Error()))
	}
	return nil
}

// parseWhenOK checks --when-ok, --for and --give-up before any AWS call.
func (o *RedriveOptions) parseWhenOK() error {
	if len(o.WhenOK) == 0 {
		if o.whenOKTimes {
			return cmdutil.UsageErrorf("--for and --give-up go with --when-ok ALARM")
		}
		return nil
	}
	names, err := health.CheckNames(o.WhenOK)
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	if err := health.CheckDurations(o.For, o.GiveUp); err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	o.WhenOK = names
	return nil
}

func (o *RedriveOptions) parseRate() error {
	if o.RateText == "max" && o.Native {
		return cmdutil.UsageErrorf("--native needs a number: --rate 1 to 500 (SQS's MaxNumberOfMessagesPerSecond)")
	}
	r, err := cmdutil.ParseRate(o.RateText)
	if err != nil {
		return err
	}
	if o.Native && (r < 1 || r > 500 || r != float64(int(r))) {
		return cmdutil.UsageErrorf("--native: --rate must be a whole number from 1 to 500, got %q", o.RateText)
	}
	o.Rate = r
	return nil
}

// parseTarget validates --to when it names a function, topic or bus
// (redrivestep.ParseTargetRef), and the flags that make no sense for one.
func (o *RedriveOptions) parseTarget() error {
	t, err := redrivestep.ParseTargetRef(o.To)
	if err != nil {
		return &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: err}
	}
	if t.Kind == "" {
		return nil
	}
	switch {
	case o.Native:
		return cmdutil.UsageErrorf("--native moves to SQS queues only: drop --native to redrive to %s", t)
	case o.MaxBacklog > 0:
		return cmdutil.UsageErrorf("--max-backlog reads a destination queue's depth; %s has none: drop --max-backlog", t)
	}
	o.Target = t
	return nil
}
