// Package verify is mfdlq verify, the runbook's verify step on the command
// line: its flags, its watch over the verify step (imported as verifystep)
// and its rendering.
package verify

import (
	"context"
	"errors"
	"time"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/runbook"
	verifystep "github.com/mfdlq/mfdlq/verify"
	"github.com/spf13/cobra"
)

// VerifyOptions are the flags of mfdlq verify.
type VerifyOptions struct {
	deps     *cmdutil.Deps
	Queue    string             // --queue: the DLQ that was redriven
	Wait     time.Duration      // --wait: how long to keep looking
	Interval time.Duration      // --interval: between looks
	Settle   time.Duration      // --settle: how long a passing state must hold
	Left     int                // --expect-left: messages left in the DLQ on purpose (-1: from the redrive)
	Force    bool               // --force: peek even though the DLQ has its own redrive policy
	NoPeek   bool               // --no-peek: judge by counts only, never receive from the DLQ
	notify   cmdutil.NotifyFlag // --notify: tell the team when the watch ends
}

// incident.VerifyFile is verify's artifact in the incident directory.

// NewCmdVerify is mfdlq verify. runF, when set, is called with the
// validated options instead of the run (flag tests).
func NewCmdVerify(d *cmdutil.Deps, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{deps: d}
	c := &cobra.Command{
		Use:   "verify --queue DLQ [--wait 10m]",
		Short: runbook.Label(runbook.StepVerify) + ": did the fix hold?",
		Long: `After a redrive, watch until the fix is proven or disproven: the DLQ reaches
zero (or the count deliberately left), nothing redriven comes back (matched
by the destination MessageIds in the redrive journal, or by body hash after
a native move), the destination queue drains, and — when CloudWatch has the
metrics — the destination received what was moved (NumberOfMessagesSent
over the move at least the number moved: a FIFO queue silently drops a send
it takes for a duplicate) and deleted as many (NumberOfMessagesDeleted).
Nothing from before the move is counted: the minute the move began in
counts only when the minute before was quiet. What CloudWatch cannot tell,
the verdict lists as not checked. It looks every --interval for up to --wait,
with a live status line on a terminal. A passing state must hold for
--settle (two looks at least): SQS's approximate counts lag by up to a
minute, and a message on its way back is briefly in neither queue's count.

A destination with traffic of its own (CloudWatch shows sends or
deletions in the 15 minutes before the move) never drains, and its own
traffic meets any bare count: it is judged live instead — no redriven
message came back by the move's end + its DelaySeconds + visibility timeout
× (maxReceiveCount + 1), its ApproximateAgeOfOldestMessage is below the
time since the last redriven send, and its NumberOfMessagesSent over the
move and NumberOfMessagesDeleted since are above what its own traffic
reaches by chance (mean + 3σ of its per-minute counts before the move) and
hold the number moved on top of the least it does (mean − 3σ); short of
that, not proven. Messages in the DLQ that are not redriven ones
are counted apart as new failures and do not decide the verdict. After a
move to several destinations (a shared DLQ's messages each back to their
own source) each destination is judged, and verify passes only if each
passes.

The DLQ's count, visible + in flight + delayed, proves that nothing came
back (a peek reads at most 1,000 and returns land behind the backlog); on a
live queue the DLQ's extra is counted as new failures only when the peek
saw all of it, else "not proven". A destination's delayed messages are not
consumed. After a redrive to a function verify finds the redriven events
themselves in the function's log group, by the request id each Invoke
answered (START … REPORT RequestId, and the runtime's failure lines): all
ran, pass; one failed, fail; any not seen yet, not proven — the function's
own Errors and Invocations decide nothing. After one to a topic or bus it
waits out the subscribers' failure window (each subscriber queue's delay +
visibility timeout × (maxReceiveCount + 1)). Until a window is over it says
"not proven yet — look again after HH:MM UTC".

It reads the redrive journal and event from the incident directory, so use
the same --incident as the redrive.

What it changes in AWS: nothing is deleted or moved. Looking at the DLQ is a
peek: each message seen is hidden for 2 seconds and its receive count goes
up by one. On a DLQ with its own redrive policy that receive counts toward
its maxReceiveCount, so verify refuses (exit 3) unless --no-peek (counts
only: anything in the DLQ beyond what was left may be a return, so it
cannot pass) or --force (peek anyway).

Examples:
  mfdlq verify --queue orders-dlq
  mfdlq verify --queue orders-dlq --wait 30m --interval 1m
  mfdlq verify --queue orders-dlq --expect-left 3 --output json
  mfdlq verify --queue chained-dlq --no-peek

--notify TARGET (or MFDLQ_NOTIFY) tells the team the verdict when the watch
ends: one short message to an SNS topic or a Slack-style webhook, with the
queue, account, what moved and came back, and where verify.json is — never
a message body. A notification that fails is a warning.

Exit 0 when the fix held; 3 when it failed: messages came back ("stop and
go back to step 2: the fix was not the right one") or a redriven event
failed; 6 when it is not proven (yet): nothing failed, but what would
prove it had not held when --wait ran out ("verdict: not proven", and
what would prove it).
` + cmdutil.ExitStatusHelp,
		Args: cobra.NoArgs,
		RunE: cmdutil.StepRunE(d, opts, opts.validate, func() string { return opts.Queue }, runF, runVerify),
	}
	f := c.Flags()
	f.StringVar(&opts.Queue, "queue", "", "the DLQ that was redriven: name, URL or ARN (required)")
	f.DurationVar(&opts.Wait, "wait", 10*time.Minute, "how long to keep looking (0-24h; 0 looks once)")
	f.DurationVar(&opts.Interval, "interval", 15*time.Second, "time between looks (1s-10m)")
	f.DurationVar(&opts.Settle, "settle", time.Minute, "how long the passing state must hold before verify passes (0-1h)")
	cmdutil.IntFlagUnset(f, &opts.Left, "expect-left", "messages left in the DLQ on purpose (default: the redrive's skipped and failed)")
	f.BoolVar(&opts.Force, "force", false, "peek even though the DLQ has its own redrive policy")
	f.BoolVar(&opts.NoPeek, "no-peek", false, "never receive from the DLQ: judge by its counts only (a message in it cannot be told from a redriven one)")
	c.MarkFlagsMutuallyExclusive("force", "no-peek")
	opts.notify.Bind(f)
	return c
}

func (o *VerifyOptions) validate() error {
	if err := o.notify.Validate(); err != nil {
		return err
	}
	switch {
	case o.Queue == "":
		return cmdutil.ErrNoQueue
	case o.Wait < 0 || o.Wait > 24*time.Hour:
		return cmdutil.UsageErrorf("--wait must be between 0 and 24h, got %s", o.Wait)
	case o.Interval < time.Second || o.Interval > 10*time.Minute:
		return cmdutil.UsageErrorf("--interval must be between 1s and 10m, got %s", o.Interval)
	case o.Settle < 0 || o.Settle > time.Hour:
		return cmdutil.UsageErrorf("--settle must be between 0 and 1h, got %s", o.Settle)
	case o.Wait < o.Settle:
		return cmdutil.UsageErrorf("--wait (%s) must be at least --settle (%s)", o.Wait, o.Settle)
	case o.Left < -1:
		return cmdutil.UsageErrorf("--expect-left must be 0 or more, got %d", o.Left)
	}
	return nil
}

func runVerify(ctx context.Context, o *VerifyOptions) error {
	d := o.deps
	client, dlq, err := d.ResolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	if dlq.RedrivePolicy != nil && !o.Force && !o.NoPeek {
		// The watch peeks again and again: each receive counts toward the
		// DLQ's own maxReceiveCount.
		return cmdutil.PeekRefusal(dlq, "pass --no-peek to judge by counts only, or --force to peek anyway")
	}
	rec, err := o.redriven(dlq)
	if err != nil {
		return err
	}
	dests, err := o.destinations(ctx, client, rec)
	if err != nil {
		return err
	}
	dest := dests[0]
	for i := range rec.Dests {
		rec.Dests[i].Queue = dests[i].Name
	}
	if rec.Target != "" {
		if rec.Window, err = o.targetWindow(ctx, client, dlq, rec); err != nil {
			return err
		}
	}
	cw, err := d.CloudWatch(ctx)
	if err != nil {
		return err
	}
	d.Announce("verifying", dlq)
	d.PlanNotify(&o.notify, dlq.Account)
	to := dest.Name
	if len(dests) > 1 {
		to = plural.Of(len(dests), "destination")
	}
	d.Infof("redrive of %s to %s began %s; looking every %s for up to %s", plural.Of(rec.Moved, "message"), to, rec.StartedAt.Format(time.RFC3339), o.Interval, o.Wait)
	fn, _ := redrive.FunctionRef(rec.DestURL)
	w := verifystep.Watch{SQS: client, CW: cw, DLQ: dlq, Dest: dest, Dests: dests, Rec: rec, Function: fn, NoPeek: o.NoPeek,
		Wait: o.Wait, Interval: o.Interval, Settle: o.Settle, Now: d.Now, Warn: d.Warnf, Status: o.status(rec, to)}
	if rec.Target == redrive.KindLambda {
		// The redriven events are found in the function's logs; without
		// a client the verdict is not proven, said in its reasons.
		if logs, err := d.Logs(ctx); err == nil {
			w.Logs = logs
		}
	}
	res, err := w.Run(ctx)
	switch {
	case errors.Is(err, verifystep.ErrInterrupted):
		o.clearStatus()
		return cmdutil.ErrInterrupted
	case err != nil:
		return err
	}
	o.clearStatus()
	if err := o.record(dlq, rec, res); err != nil {
		return err
	}
	if err := o.render(res); err != nil {
		return err
	}
	o.tell(ctx, dlq, res)
	switch res.Verdict {
	case verifystep.NotProven:
		return cmdutil.ErrSilentNotProven
	case verifystep.Fail:
		return cmdutil.ErrSilentCheckFailed
	}
	d.NextStep("mfdlq record")
	return nil
}
