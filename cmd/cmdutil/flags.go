package cmdutil

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The flags and the RunE shape that most commands share, defined once
// (restic's AddFlags): a command binds its group instead of repeating its
// text, so a fix of the help or of the check reaches every command.

// queueFlagUsage is --queue's help where the DLQ is required.
const queueFlagUsage = "the DLQ: name, URL or ARN (required)"

// AddQueueFlag binds --queue, the DLQ the command works on, to p.
func AddQueueFlag(f *pflag.FlagSet, p *string) { f.StringVar(p, "queue", "", queueFlagUsage) }

// AddForceFlag binds --force of a command that peeks at the DLQ: a peek
// counts toward the DLQ's own redrive policy, so it needs a person's word.
func AddForceFlag(f *pflag.FlagSet, p *bool) {
	f.BoolVar(p, "force", false, "peek even though the DLQ has its own redrive policy")
}

// ErrNoQueue is the usage error of a command that needs --queue and has
// none.
var ErrNoQueue = UsageErrorf("--queue is required: the DLQ's name, URL or ARN")

// StepRunE is a command's RunE: validate the options, check --incident
// against the queue the incident is named for (incidentQueue; nil for a
// command that keeps no incident), then hand the options to runF (a
// test's capture of the parsed flags) or to the command's run function.
func StepRunE[O any](d *Deps, opts *O, validate func() error, incidentQueue func() string,
	runF func(*O) error, run func(context.Context, *O) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, _ []string) error {
		if err := validate(); err != nil {
			return err
		}
		if incidentQueue != nil {
			if err := d.CheckIncident(incidentQueue()); err != nil {
				return err
			}
		}
		if runF != nil {
			return runF(opts)
		}
		return run(c.Context(), opts)
	}
}

// lazyClient is a Deps client field: the client of the command's AWS
// configuration, built only when a command first asks (so --help and bad
// flags load no configuration). d.AWS is read at the call, so a test may
// replace it after NewDeps.
func lazyClient[T any](d *Deps, build func(aws.Config) T) func(context.Context) (T, error) {
	return func(ctx context.Context) (T, error) {
		cfg, err := d.AWS(ctx)
		if err != nil {
			var zero T
			return zero, err
		}
		return build(cfg), nil
	}
}
