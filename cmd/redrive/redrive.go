package redrive

import (
	"errors"
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

// validate checks the flags before any AWS call (the request's checks
// are the step's: redrive/request_flags.go); every error is a usage error.
func (o *RedriveOptions) validate() error {
	for _, check := range []func() error{
		func() error { return o.CheckTransform(o.transformFlags.Program, o.transformFlags.File) },
		func() error { return o.CheckDedupe(o.dedupeFlags.On, o.dedupeFlags.KeyExpr) },
		o.validateSource,
		o.CheckRate,
		o.CheckTarget,
		o.notify.Validate,
		func() error { return o.CheckWhenOK(o.whenOKTimes) },
		func() error { return o.Request.Validate() },
		func() error { return trimmed(o.Selection.Parse(o.deps.Now())) },
	} {
		if err := check(); err != nil {
			if _, ok := err.(*cmdutil.ExitError); ok {
				return err
			}
			return cmdutil.UsageErrorf("%v", err)
		}
	}
	return nil
}

// trimmed is err without the spaces around its text: a selection's error
// may quote jq's, which can end in a newline.
func trimmed(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(strings.TrimSpace(err.Error()))
}
