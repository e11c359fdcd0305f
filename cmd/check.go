package cmd

import "github.com/spf13/cobra"

// checkOptions are the flags of mfdlq check.
type checkOptions struct {
	deps *Deps
}

// newCheckCmd is a placeholder until its issue lands: it refuses to run.
func newCheckCmd(d *Deps, runF func(*checkOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "The safeguards that would have warned earlier",
		RunE: func(c *cobra.Command, _ []string) error {
			return errNotImplemented
		},
	}
}
