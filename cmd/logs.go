package cmd

import "github.com/spf13/cobra"

// logsOptions are the flags of mfdlq logs.
type logsOptions struct {
	deps *Deps
}

// newLogsCmd is a placeholder until its issue lands: it refuses to run.
func newLogsCmd(d *Deps, runF func(*logsOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "logs",
		Short: "Step 4: the consumer's real exception, by MessageId",
		RunE: func(c *cobra.Command, _ []string) error {
			return errNotImplemented
		},
	}
}
