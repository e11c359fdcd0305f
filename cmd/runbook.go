package cmd

import "github.com/spf13/cobra"

// runbookOptions are the flags of mfdlq runbook.
type runbookOptions struct {
	deps *Deps
}

// newRunbookCmd is a placeholder until its issue lands: it refuses to run.
func newRunbookCmd(d *Deps, runF func(*runbookOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "runbook",
		Short: "All seven steps, guided",
		RunE: func(c *cobra.Command, _ []string) error {
			return errNotImplemented
		},
	}
}
