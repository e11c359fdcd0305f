package cmdutil

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

// TestFleetFlags: the accounts a fleet-wide read names, parsed once.
func TestFleetFlags(t *testing.T) {
	for args, want := range map[string]FleetFlags{
		"--accounts 111111111111,222222222222,111111111111 --role-name mfdlq-reader": {Accounts: "111111111111,222222222222,111111111111", RoleName: "mfdlq-reader", ids: []string{"111111111111", "222222222222"}},
		"--accounts all --role-name ops/mfdlq-reader":                                {Accounts: "all", RoleName: "ops/mfdlq-reader"},
		"--profiles pay-prod,ship-prod":                                              {Profiles: []string{"pay-prod", "ship-prod"}},
	} {
		var got FleetFlags
		fs := pflag.NewFlagSet("ls", pflag.ContinueOnError)
		got.Bind(fs)
		if err := fs.Parse(strings.Fields(args)); err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(FleetFlags{})); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", args, diff)
		}
	}
}
