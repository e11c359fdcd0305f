package cmd

import "github.com/spf13/cobra"

// classifyOptions are the flags of mfdlq classify.
type classifyOptions struct {
	deps *Deps
}

// newClassifyCmd is a placeholder until its issue lands: it refuses to run.
func newClassifyCmd(d *Deps, runF func(*classifyOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "classify",
		Short: "Step 3: poison, transient or data — with the evidence",
		RunE: func(c *cobra.Command, _ []string) error {
			return errNotImplemented
		},
	}
}
