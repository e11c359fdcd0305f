package cmdutil

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/pflag"

	"github.com/mfdlq/mfdlq/fleet"
)

// TestFleetFlags: --accounts, --role-name and --profiles land in
// fleet.Names, which Validate checks (fleet's TestNamesValidate parses).
func TestFleetFlags(t *testing.T) {
	for args, want := range map[string]fleet.Names{
		"--accounts 111111111111,222222222222 --role-name mfdlq-reader": {Accounts: "111111111111,222222222222", RoleName: "mfdlq-reader"},
		"--accounts all --role-name ops/mfdlq-reader":                   {Accounts: "all", RoleName: "ops/mfdlq-reader"},
		"--profiles pay-prod,ship-prod":                                 {Profiles: []string{"pay-prod", "ship-prod"}},
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
		if diff := cmp.Diff(want, got.Names, cmpopts.IgnoreUnexported(fleet.Names{})); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", args, diff)
		}
	}
	var bad FleetFlags
	bad.Accounts = "all"
	if err := bad.Validate(); ExitCode(err, false) != ExitUsage {
		t.Errorf("--accounts all without --role-name: %v (exit %d), want a usage error", err, ExitCode(err, false))
	}
}
