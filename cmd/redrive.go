package cmd

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/health"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/window"
	"github.com/mfdlq/mfdlq/runbook"
)

// redriveOptions are the flags of mfdlq redrive: the redrive.Request the
// step resolves (each of its flags bound once, into it), and the flags
// that are the command's own.
type redriveOptions struct {
	deps *Deps
	redrive.Request
	Queue  string // --queue: the DLQ (name, URL or ARN)
	DryRun bool   // --dry-run
	Yes    bool   // --yes
	// Verbose (--verbose) prints the whole plan on a terminal too.
	Verbose bool
	notify  notifyFlag
	transformFlags
	dedupeFlags

	selection   mover.Selection
	whenOKTimes bool // --for or --give-up given
}

func newRedriveCmd(d *Deps, runF func(*redriveOptions) error) *cobra.Command {
	opts := &redriveOptions{deps: d}
	c := &cobra.Command{
		Use:   "redrive --queue DLQ [--to QUEUE] --rate N|max [--max N] [--filter JQ] [--dry-run] [--yes]",
		Short: runbook.Label(runbook.StepRedrive) + ": move messages back at a bounded rate, never losing one",
		Long: `Move the DLQ's messages to their source queue (or --to QUEUE) at --rate
messages per second: receive, send with the body and every message attribute,
then delete exactly what was sent. The move is at least once: the consumer
must be idempotent. It never loses a message: every send is journaled
in the incident's redrive-journal.jsonl before the delete, so running the same
command again after a crash or Ctrl-C finishes the move without resending.

What it changes in AWS: sends to the destination and deletes from the DLQ
(with --keep, copies and deletes nothing). Each message sent carries one
message attribute more, mfdlq-redrive (the incident, the run, its DLQ
MessageId, the attempt), in place of an earlier one, so its consumer and a
later DLQ can tell it was redriven; one that already has 10 attributes goes
as it was, counted (--no-stamp: none; a function or a bus takes no
attributes). The journal, the event and the report name who ran it (STS). Messages not selected by --filter,
--sent-after/--sent-before or --group are made visible again at once. It moves
at most the backlog present when it starts (or --max). With --native it asks
SQS to do the move (StartMessageMoveTask) and follows it. With --to
lambda:FUNCTION, sns:TOPIC or events:BUS it sends where SQS's own redrive
cannot: an asynchronous Invoke, a Publish, a PutEvents of each message's
original payload (see docs/redrive.md); without --to, a DLQ no queue feeds
goes back to the one origin its messages name.

Safety: --canary N (default 10 when the destination is the DLQ's own source)
moves N first and waits for the consumer to fail them again (visibility
timeout × maxReceiveCount, or --canary-wait) before the rest; during the
whole move it halts after --max-returned messages came back. It refuses, in
one line naming the fix and before anything changes, when a poison group
would move without a recorded fix (--fixed "what changed"; a mixed verdict
names the --group of the others), when the problem is still alive, or when
the destination's Lambda consumer has not changed since the failures began
(the fix is not deployed; --fixed alone does not pass this) — unless
--force. A new fix after a redrive is a new attempt: the messages that came
back may move again. One operator at a time: the run holds a lease on the
DLQ (the queue tag mfdlq-lease); a second run exits 3 naming the holder, and
--take-over takes the lease of a run that died; --lease s3://BUCKET/PREFIX keeps
it in S3 with conditional writes instead (docs/redrive.md). It prints the plan and asks
first (--yes skips the question; without a terminal --yes is required).

--when-ok ALARM[,ALARM…] waits, after the question, until every named
CloudWatch alarm (metric or composite) has been OK without a break for --for
(10m), then moves; an alarm leaving OK during the move stops the sends at
once, and the move goes on after --for of OK again. --give-up (6h) ends a
wait with exit 3. A wait killed by a SIGKILL is taken up by the same
command run again (docs/redrive-when-ok.md).

--transform PROGRAM (or --transform-file FILE) repairs each message on its
way: a jq program over the payload (inside an SNS or EventBridge envelope, the
inner message, re-wrapped as it came) gives the new payload, and
set_attributes(f) the message attributes. The plan shows a redacted
before/after of the first messages and the counts; --dry-run counts the whole
selection. Each original is kept in the incident's transform-originals.jsonl,
fsynced before its repaired copy is sent, and the plan prints the command that
puts them back; a message the program fails on stays in the DLQ
(docs/transform.md):
  mfdlq redrive --queue orders-dlq --rate 10 --transform '.version = 1' --yes

--dedupe --key JQ moves the first message of each idempotency key (a jq
expression over the payload, as --transform sees it) and leaves the others —
a producer's resends, the copies an earlier partial redrive left — in the
DLQ, journaled "duplicate" and counted, never deleted. Each send journals its
key's digest, so the same command run again (a resume, the next attempt)
moves no second message of a key; a message without a key moves as its own.
--dry-run counts the whole selection's keys (docs/dedupe.md):
  mfdlq redrive --queue orders-dlq --rate 10 --dedupe --key '"cobro:" + .order_id' --yes

--from-file moves an export's messages (edited or not) with the same journal,
resume, rate, canary, selection and FIFO group and deduplication id, keyed on
the file's MessageIds: a rerun sends nothing twice that it journaled. The
file is checked whole first: a line that is not a message exits 2, nothing
sent. The file itself never changes.

The plan shows the note on the DLQ (mfdlq note), if any: a colleague's
claim, not a lock — the lease still decides. --notify TARGET (or
MFDLQ_NOTIFY) tells the team when the move ends: one short message to an
SNS topic or a Slack-style webhook with the queue, account, what moved and
the outcome, never a body; a notification that fails is a warning.
` + exitStatusHelp,
		Example: `  mfdlq redrive --queue orders-dlq --rate 10 --fixed "orders v2 parser deployed" --dry-run
  mfdlq redrive --queue orders-dlq --rate 10 --filter '.Body.version == 2' --yes
  mfdlq redrive --queue orders-dlq --to orders-staging --rate max --keep --canary 0
  mfdlq redrive --queue orders-fn-dlq --to lambda:orders:live --rate 5 --yes
  mfdlq redrive --from-file orders-dlq.jsonl.gz --to orders --rate 10 --yes
  mfdlq redrive --queue orders-dlq --rate 20 --when-ok gateway-5xx --for 10m --yes`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.whenOKTimes = c.Flags().Changed("for") || c.Flags().Changed("give-up")
			if err := opts.validate(); err != nil {
				return err
			}
			if err := opts.deps.checkIncident(opts.Queue); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runRedrive(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Queue, "queue", "", "the DLQ: name, URL or ARN (required)")
	f.StringVar(&opts.To, "to", "", "destination: a queue, lambda:FUNCTION, sns:TOPIC or events:BUS (default: the DLQ's one source queue, else the one origin its messages name)")
	f.StringVar(&opts.RateText, "rate", "", "messages per second from 0.01 to 10000, or max (required; --native: 1-500)")
	f.IntVar(&opts.Workers, "workers", 0, "fix the batches in flight (receive→send→delete pipelines); default: adaptive, up to --max-workers")
	f.IntVar(&opts.MaxWorkers, "max-workers", mover.DefaultMaxWorkers, "cap of the adaptive batches in flight (a SIGKILL duplicates at most 10 per batch in flight)")
	f.IntVar(&opts.Max, "max", 0, "move at most N messages (default: the backlog present at start)")
	f.StringVar(&opts.Filter, "filter", "", "jq expression over the message (Body parsed when JSON); moves those it is true for")
	f.StringVar(&opts.SentAfter, "sent-after", "", "only messages sent after this time (RFC 3339)")
	f.StringVar(&opts.SentBefore, "sent-before", "", "only messages sent before this time (RFC 3339)")
	f.StringVar(&opts.Group, "group", "", "only messages of this classification.json group")
	f.BoolVar(&opts.Keep, "keep", false, "copy instead of move: nothing is deleted from the DLQ")
	f.BoolVar(&opts.NoStamp, "no-stamp", false, "send the messages without the provenance attribute mfdlq-redrive (incident, run, DLQ MessageId, attempt)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print the plan and change nothing")
	f.BoolVar(&opts.Verbose, "verbose", false, "the whole plan on a terminal too (concurrency, lease, provenance, operator, idempotency, canary proof); piped, it always is")
	intFlagUnset(f, &opts.Canary, "canary", "move N first and check none come back (default 10 to the DLQ's own source, else 0)")
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
	c.MarkFlagsMutuallyExclusive("lease", "from-file")
	opts.notify.bind(f)
	opts.transformFlags.add(c)
	opts.dedupeFlags.add(c)
	groupFlags(c, redriveFlagGroups)
	return c
}

// redriveFlagGroups are redrive's help groups, most runs' flags first;
// the rest are advanced.
var redriveFlagGroups = []flagGroup{
	{"Selection", []string{"queue", "from-file", "group", "filter", "sent-after", "sent-before", "max"}},
	{"Pace", []string{"rate", "when-ok", "for", "give-up", "max-backlog"}},
	{"Safety", []string{"dry-run", "yes", "fixed", "canary", "canary-wait", "max-returned", "force"}},
	{"Destination", []string{"to", "keep", "allow-account"}},
}

func (o *redriveOptions) validate() error {
	p, err := o.transformFlags.compile()
	if err != nil {
		return err
	}
	o.Request.Transform = p
	if o.Request.Dedupe, err = o.dedupeFlags.claims(o.Native); err != nil {
		return err
	}
	for _, parse := range []func() error{o.validateSource, o.parseRate, o.parseTarget, o.notify.validate, o.parseWhenOK} {
		if err := parse(); err != nil {
			return err
		}
	}
	if err := o.validateAllow(); err != nil {
		return err
	}
	if _, err := lease.ParseLocation(o.Lease); o.Lease != "" && err != nil {
		return usageErrorf("--lease %v", err)
	}
	switch {
	case o.Workers < 0 || o.Workers > mover.MaxWorkersLimit:
		return usageErrorf("--workers must be between 1 and %d, got %d", mover.MaxWorkersLimit, o.Workers)
	case o.MaxWorkers < 1 || o.MaxWorkers > mover.MaxWorkersLimit:
		return usageErrorf("--max-workers must be between 1 and %d, got %d", mover.MaxWorkersLimit, o.MaxWorkers)
	case o.Max < 0:
		return usageErrorf("--max must be >= 0, got %d", o.Max)
	case o.Canary < -1:
		return usageErrorf("--canary must be >= 0, got %d", o.Canary)
	case o.CanaryWait < 0:
		return usageErrorf("--canary-wait must be >= 0, got %s", o.CanaryWait)
	case o.MaxReturned < 0:
		return usageErrorf("--max-returned must be >= 0, got %d", o.MaxReturned)
	case o.Visibility < 10 || o.Visibility > 43200:
		return usageErrorf("--visibility must be between 10 and 43200 seconds, got %d", o.Visibility)
	case o.BeyondWindow != "" && o.BeyondWindow != window.BeyondMove && o.BeyondWindow != window.BeyondKeep:
		return usageErrorf("--beyond-window must be move or keep, got %q", o.BeyondWindow)
	case o.Native && o.BeyondWindow == window.BeyondKeep:
		return usageErrorf("--native moves every message: --beyond-window keep needs mfdlq's own mover (drop --native)")
	case o.IdempotencyWindow < 0:
		return usageErrorf("--idempotency-window must be > 0, got %s", o.IdempotencyWindow)
	case o.Native && (o.SentAfter != "" || o.SentBefore != ""):
		return usageErrorf("--native moves every message: drop --sent-after/--sent-before, or drop --native")
	}
	return o.parseSelection()
}

// parseWhenOK checks --when-ok, --for and --give-up before any AWS call.
func (o *redriveOptions) parseWhenOK() error {
	if len(o.WhenOK) == 0 {
		if o.whenOKTimes {
			return usageErrorf("--for and --give-up go with --when-ok ALARM")
		}
		return nil
	}
	names, err := health.CheckNames(o.WhenOK)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if err := health.CheckDurations(o.For, o.GiveUp); err != nil {
		return usageErrorf("%v", err)
	}
	o.WhenOK = names
	return nil
}

func (o *redriveOptions) parseRate() error {
	if o.RateText == "max" && o.Native {
		return usageErrorf("--native needs a number: --rate 1 to 500 (SQS's MaxNumberOfMessagesPerSecond)")
	}
	r, err := parseRate(o.RateText)
	if err != nil {
		return err
	}
	if o.Native && (r < 1 || r > 500 || r != float64(int(r))) {
		return usageErrorf("--native: --rate must be a whole number from 1 to 500, got %q", o.RateText)
	}
	o.Rate = r
	return nil
}

// parseTarget validates --to when it names a function, topic or bus
// (redrive.ParseTargetRef), and the flags that make no sense for one.
func (o *redriveOptions) parseTarget() error {
	t, err := redrive.ParseTargetRef(o.To)
	if err != nil {
		return &exitError{Code: ExitUsage, Err: err}
	}
	if t.Kind == "" {
		return nil
	}
	switch {
	case o.Native:
		return usageErrorf("--native moves to SQS queues only: drop --native to redrive to %s", t)
	case o.MaxBacklog > 0:
		return usageErrorf("--max-backlog reads a destination queue's depth; %s has none: drop --max-backlog", t)
	}
	o.Target = t
	return nil
}

func (o *redriveOptions) parseSelection() error {
	s := mover.Selection{Filter: o.Filter, Group: o.Group}
	for _, t := range []struct {
		flag, val string
		dst       *time.Time
	}{{"--sent-after", o.SentAfter, &s.SentAfter}, {"--sent-before", o.SentBefore, &s.SentBefore}} {
		if t.val == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339, t.val)
		if err != nil {
			return usageErrorf("%s %q: use RFC 3339, e.g. 2025-03-02T03:00:00Z", t.flag, t.val)
		}
		*t.dst = v
	}
	if !s.SentAfter.IsZero() && !s.SentBefore.IsZero() && !s.SentAfter.Before(s.SentBefore) {
		return usageErrorf("--sent-after must be before --sent-before")
	}
	if _, err := s.Compile(); err != nil {
		return usageErrorf("%s", strings.TrimSpace(err.Error()))
	}
	o.selection = s
	return nil
}
