package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
)

// RootCommand returns mfdlq's command tree for generating documentation
// (internal/gendocs): building it runs nothing and loads no AWS
// configuration.
func RootCommand() *cobra.Command {
	return newRootCmd(cmdutil.NewDeps(cmdutil.SystemIO(), nil))
}
