package cmd

import "github.com/spf13/cobra"

// verifyOptions are the flags of mfdlq verify.
type verifyOptions struct {
	deps *Deps
}

// newVerifyCmd is a placeholder until its issue lands: it refuses to run.
func newVerifyCmd(d *Deps, runF func(*verifyOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Step 6: did the fix hold?",
		RunE: func(c *cobra.Command, _ []string) error {
			return errNotImplemented
		},
	}
}
