// Package check is `mfdlq check`: the DLQ's safeguards (alarms, retention,
// the consumers' retries and timeouts), or with --all every DLQ of the
// accounts and regions. The findings are the check step package's,
// imported as checkstep.
package check

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/spf13/cobra"

	checkstep "github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// CheckOptions are the flags of mfdlq check.
type CheckOptions struct {
	deps             *cmdutil.Deps
	Queue            string        // --queue: the DLQ
	CreateAlarm      bool          // --create-alarm
	Topic            string        // --topic: SNS topic ARN the alarm notifies
	SDKAttempts      int           // --sdk-attempts: the consumer's SDK attempts per call
	WorkflowAttempts int           // --workflow-attempts: retries above the consumer (Step Functions …)
	ReadTimeout      time.Duration // --read-timeout: the consumer's client read timeout
	Yes              bool          // --yes
	DryRun           bool          // --dry-run
	All              bool          // --all: every DLQ of the accounts and regions
	Prefix           string        // --prefix, with --all
	Regions          []string      // the global --region split on commas, with --all
	fleet            cmdutil.FleetFlags
}

// incident.CheckFile is check's artifact in the incident directory.

var snsARN = regexp.MustCompile(`^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$`)

// NewCmdCheck is `mfdlq check`; runF, when not nil, gets the parsed options
// instead of the run (tests).
func NewCmdCheck(d *cmdutil.Deps, runF func(*CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{deps: d}
	c := &cobra.Command{
		Use:   "check --queue DLQ [--create-alarm --topic ARN] [--sdk-attempts N] [--workflow-attempts N]",
		Short: runbook.Label(runbook.StepCheck) + ": what would have warned earlier",
		Long:  docs.Long("check") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if !opts.All { // --all records no incident
				if err := opts.deps.CheckIncident(opts.Queue); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.All {
				return runCheckAll(c.Context(), opts)
			}
			return runCheck(c.Context(), opts)
		},
	}
	f := c.Flags()
	cmdutil.AddQueueFlag(f, &opts.Queue)
	f.BoolVar(&opts.CreateAlarm, "create-alarm", false, "create the DLQ alarm (needs --topic)")
	f.StringVar(&opts.Topic, "topic", "", "SNS topic ARN the alarm notifies")
	f.IntVar(&opts.SDKAttempts, "sdk-attempts", 3, "the consumer's AWS SDK attempts per call (1-20; the SDKs' default is 3)")
	f.IntVar(&opts.WorkflowAttempts, "workflow-attempts", 1, "attempts of the workflow above the consumer, e.g. Step Functions retries (1-20)")
	f.DurationVar(&opts.ReadTimeout, "read-timeout", 0, "the consumer's longest client read timeout, to compare with the visibility timeout")
	f.BoolVar(&opts.Yes, "yes", false, "create the alarm without asking")
	f.BoolVar(&opts.DryRun, "dry-run", false, "show the alarm without creating it")
	f.BoolVar(&opts.All, "all", false, "check every DLQ and every redrive policy of the accounts and regions (--region a,b, --accounts, --profiles)")
	f.StringVar(&opts.Prefix, "prefix", "", "with --all: only queues whose names start with P")
	opts.fleet.Bind(f)
	c.MarkFlagsMutuallyExclusive("all", "queue")
	c.MarkFlagsMutuallyExclusive("all", "create-alarm")
	return c
}

func (o *CheckOptions) validate() error {
	if o.All || o.fleet.Active() || o.Prefix != "" {
		return o.validateAll()
	}
	switch {
	case o.Queue == "":
		return cmdutil.ErrNoQueue
	case o.CreateAlarm && o.Topic == "":
		return cmdutil.UsageErrorf("--create-alarm needs --topic: the SNS topic ARN the alarm notifies")
	case o.Topic != "" && !snsARN.MatchString(o.Topic):
		return cmdutil.UsageErrorf("--topic %q is not an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME)", o.Topic)
	case o.Topic != "" && !o.CreateAlarm:
		return cmdutil.UsageErrorf("--topic is only used with --create-alarm")
	}
	return o.validateConsumer()
}

// validateConsumer checks the consumer's settings check compares against
// (one queue or --all).
func (o *CheckOptions) validateConsumer() error {
	switch {
	case o.SDKAttempts < 1 || o.SDKAttempts > 20:
		return cmdutil.UsageErrorf("--sdk-attempts must be between 1 and 20, got %d", o.SDKAttempts)
	case o.WorkflowAttempts < 1 || o.WorkflowAttempts > 20:
		return cmdutil.UsageErrorf("--workflow-attempts must be between 1 and 20, got %d", o.WorkflowAttempts)
	case o.ReadTimeout < 0:
		return cmdutil.UsageErrorf("--read-timeout must not be negative, got %s", o.ReadTimeout)
	}
	return nil
}

func runCheck(ctx context.Context, o *CheckOptions) error {
	d := o.deps
	defer d.HoldIncidentLine()() // the answer first, where it was written last
	client, dlq, err := d.ResolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	cw, err := d.CloudWatch(ctx)
	if err != nil {
		return err
	}
	if o.CreateAlarm {
		if err := o.createAlarm(ctx, cw, dlq); err != nil {
			return err
		}
	}
	in, err := o.gather(ctx, client, cw, dlq)
	if err != nil {
		return err
	}
	o.gatherConsumer(ctx, cw, &in)
	rep := checkstep.Result{Queue: dlq.Name, Findings: checkstep.Findings(in)}
	rep.Verdict = checkstep.Worst(rep.Findings)
	if err := o.record(dlq, &rep, in); err != nil {
		return err
	}
	if err := o.render(&rep); err != nil {
		return err
	}
	if rep.Verdict == checkstep.Fail {
		return cmdutil.ErrSilentCheckFailed
	}
	return nil
}

// gather reads the sources, the alarms and the mappings check judges.
func (o *CheckOptions) gather(ctx context.Context, c sqsapi.Client, cw cwapi.AlarmsAPI, dlq *sqsapi.Queue) (checkstep.CheckInput, error) {
	d := o.deps
	in := checkstep.CheckInput{DLQ: dlq, SDKAttempts: o.SDKAttempts, WorkflowAttempts: o.WorkflowAttempts,
		ReadTimeout: o.ReadTimeout, Topic: o.Topic, Mappings: map[string][]lambdaapi.Mapping{}}
	srcs, err := sqsapi.SourceQueues(ctx, c, dlq)
	if err != nil {
		return in, err
	}
	in.Sources = srcs
	alarms := checkstep.ReadAlarms(ctx, cw)
	if err := alarms.Err; err != nil {
		if !sqsapi.IsUnsupportedOrDenied(err) {
			return in, fmt.Errorf("check %s: %w", dlq.Name, err)
		}
		// The SQS and Lambda findings still stand: judge them, and mark
		// the alarms as not verified.
		d.Warnf("CloudWatch alarms of %s unknown: %v", dlq.Name, err)
	}
	if alarms.Warning != "" {
		d.Warnf("%s", alarms.Warning)
	}
	alarms.Fill(&in)
	l, err := d.Lambda(ctx)
	if err != nil {
		return in, err
	}
	if in.AsyncFunctions, err = o.asyncFunctions(ctx, l, dlq, len(srcs) > 0); err != nil {
		return in, err
	}
	for _, src := range srcs {
		ms, err := lambdaapi.Mappings(ctx, l, src.Name, src.ARN, int64(src.Visibility.Seconds()))
		if err != nil {
			if !sqsapi.IsUnsupportedOrDenied(err) {
				return in, err
			}
			d.Warnf("Lambda mappings of %s unknown: %v", src.Name, err)
			continue // unknown, not absent
		}
		in.Mappings[src.Name] = ms
	}
	return in, nil
}

// createAlarm names the account, region and queue, shows the alarm, asks,
// and creates it.
func (o *CheckOptions) createAlarm(ctx context.Context, cw cwapi.AlarmsAPI, dlq *sqsapi.Queue) error {
	d := o.deps
	d.Announce("creating an alarm", dlq)
	in := cwapi.DLQAlarmInput(dlq.Name, o.Topic)
	fmt.Fprintf(d.IO.ErrOut, "alarm %s: AWS/SQS ApproximateNumberOfMessagesVisible (Maximum) > 0 over 5 minutes → %s\n", cmdutil.SafeArgs([]any{*in.AlarmName, o.Topic})...)
	if o.DryRun {
		d.Infof("dry run: no alarm was created")
		return nil
	}
	if err := d.Confirm(fmt.Sprintf("create alarm %s?", *in.AlarmName), o.Yes); err != nil {
		return err
	}
	name, err := cwapi.CreateDLQAlarm(ctx, cw, dlq.Name, o.Topic)
	if err != nil {
		return err
	}
	d.Infof("alarm %s created", name)
	return nil
}
