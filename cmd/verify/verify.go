// Package verify is mfdlq verify, the runbook's verify step on the command
// line: its flags, its watch over the verify step (imported as verifystep)
// and its rendering.
package verify

import (
	"context"
	"errors"
	"time"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/docs"
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
		Long:  docs.Long("verify") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  cmdutil.StepRunE(d, opts, opts.validate, func() string { return opts.Queue }, runF, runVerify),
	}
	f := c.Flags()
	f.StringVar(&opts.Queue, "queue", "", "the DLQ that was redriven: name, URL or ARN (required)")
	f.DurationVar(&opts.Wait, "wait", 10*time.Minute, "how long to keep looking (0-24h; 0 looks once)")
	f.DurationVar(&opts.Interval, "interval", 15*time.Second, "time between looks (1s-10m)")
	f.DurationVar(&opts.Settle, "settle", time.Minute, "how long the passing state must hold before verify passes (0-1h)")
	cmdutil.IntFlagUnset(f, &opts.Left, "expect-left", "messages left in the DLQ on purpose (default: the redrive's skipped and failed)")
	cmdutil.AddForceFlag(f, &opts.Force)
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
		return cmdutil.ChainedDLQError(dlq, "every peek", "pass --no-peek to judge by counts only, or --force to peek anyway")
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
		if rec.ReturnWindow, err = o.targetReturnWindow(ctx, client, dlq, rec); err != nil {
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
	w := verifystep.Watch{SQS: client, CW: cw, DLQ: dlq, Dest: dest, Dests: dests, Rec: rec, NoPeek: o.NoPeek,
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
