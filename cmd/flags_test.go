package cmd

import (
	"bytes"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
)

// parseWith runs a command with a capturing runF and returns the error.
func parseWith(c *cobra.Command, args []string) error {
	c.SetArgs(args)
	c.SetOut(&bytes.Buffer{})
	c.SetErr(&bytes.Buffer{})
	return c.Execute()
}

func checkUsageErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want || cmdutil.ExitCode(err, false) != cmdutil.ExitUsage {
		t.Fatalf("err = %v (exit %d); want %q (exit 2)", err, cmdutil.ExitCode(err, false), want)
	}
}
