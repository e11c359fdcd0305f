package cmd

import "github.com/spf13/cobra"

// redriveOptions are the flags of mfdlq redrive.
type redriveOptions struct {
	deps *Deps
}

// newRedriveCmd is a placeholder until its issue lands: it refuses to run.
func newRedriveCmd(d *Deps, runF func(*redriveOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "redrive",
		Short: "Step 5: move messages back at a bounded rate",
		RunE: func(c *cobra.Command, _ []string) error {
			return errNotImplemented
		},
	}
}
