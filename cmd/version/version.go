// Package version is `mfdlq version` and the root's --version flag: the
// binary's own build (cmdutil.BuildVersion), as a line or as JSON.
package version

import (
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
)

// VersionOptions are version's: it takes no flags of its own, only the
// global --output.
type VersionOptions struct {
	deps *cmdutil.Deps
}

// SetFlag gives root --version (cobra's flag, printed with our line).
func SetFlag(root *cobra.Command) {
	root.Version = cmdutil.ReadBuildVersion().String()
	root.SetVersionTemplate("{{.Version}}\n")
}

// NewCmdVersion is `mfdlq version`: the same line, or under --output json
// the BuildVersion as one object. runF, when not nil, gets the options
// instead of the run (tests).
func NewCmdVersion(d *cmdutil.Deps, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{deps: d}
	return &cobra.Command{
		Use:   "version",
		Short: "Print mfdlq's version (and the commit it was built from)",
		Long: `Print the version of this mfdlq binary: the module version, and the VCS
commit, its time and whether the tree was modified when the build recorded
them. It changes nothing and calls no AWS API.

  mfdlq version
  mfdlq --version
  mfdlq version --output json
` + cmdutil.ExitStatusHelp,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runVersion(c, opts)
		},
	}
}

func runVersion(c *cobra.Command, o *VersionOptions) error {
	v := cmdutil.ReadBuildVersion()
	if o.deps.JSONOutput() {
		return o.deps.PrintJSON(v)
	}
	_, err := c.OutOrStdout().Write([]byte(v.String() + "\n"))
	return err
}
