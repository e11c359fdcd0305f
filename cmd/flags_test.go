package cmd

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
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
	if err == nil || err.Error() != want || exitCode(err, false) != ExitUsage {
		t.Fatalf("err = %v (exit %d); want %q (exit 2)", err, exitCode(err, false), want)
	}
}

// checkParse runs newCmd on args with a capturing runF and checks the
// outcome of one row of a flag table: the exact usage error when wantErr is
// set, else the parsed options (compared with cmp and opts).
func checkParse[O any](t *testing.T, d *Deps, newCmd func(*Deps, func(*O) error) *cobra.Command, args []string, want O, wantErr string, opts ...cmp.Option) {
	t.Helper()
	var got *O
	err := parseWith(newCmd(d, func(o *O) error { got = o; return nil }), args)
	if wantErr != "" {
		checkUsageErr(t, err, wantErr)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, *got, opts...); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}
