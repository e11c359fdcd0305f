package cmd

import "github.com/spf13/cobra"

// recordOptions are the flags of mfdlq record.
type recordOptions struct {
	deps *Deps
}

// newRecordCmd is a placeholder until its issue lands: it refuses to run.
func newRecordCmd(d *Deps, runF func(*recordOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "record",
		Short: "Step 7: write the incident report",
		RunE: func(c *cobra.Command, _ []string) error {
			return errNotImplemented
		},
	}
}
