package cmd

import "github.com/spf13/cobra"

// containOptions are the flags of mfdlq contain.
type containOptions struct {
	deps *Deps
}

// newContainCmd is a placeholder until its issue lands: it refuses to run.
func newContainCmd(d *Deps, runF func(*containOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "contain",
		Short: "Step 1: is the problem still alive?",
		RunE: func(c *cobra.Command, _ []string) error {
			return errNotImplemented
		},
	}
}
