package ls

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
)

// TestLsFlags: argv to options, or the exact usage error before any AWS
// call.
func TestLsFlags(t *testing.T) {
	tests := []struct {
		region, args string
		want         LsOptions
		wantErr      string
	}{
		{args: "", want: LsOptions{Concurrency: 8, Notes: "non-empty"}},
		{args: "--notes all", want: LsOptions{Concurrency: 8, Notes: "all"}},
		{args: "--notes some", wantErr: `--notes must be non-empty, all or none, got "some"`},
		{args: "--accounts all", wantErr: "--accounts needs --role-name: the role mfdlq assumes in each account"},
		{args: "--accounts 123456789012,12 --role-name r", wantErr: `--accounts: "12" is not a 12-digit account id; give ID,ID or all`},
		{args: "--accounts all --role-name r --profiles a", wantErr: "--accounts and --profiles are two ways to name the accounts: give one"},
		{args: "--role-name r", wantErr: "--role-name is used with --accounts ID,ID|all"},
		{args: "--accounts all --role-name a;b", wantErr: `--role-name "a;b": a role name is 1-64 letters, digits and + = , . @ - _ (a path before it with /)`},
		{region: "eu-west-1, us-east-1", args: "--prefix pay --non-empty --fail-on-messages --concurrency 16",
			want: LsOptions{Regions: []string{"eu-west-1", "us-east-1"}, Prefix: "pay", NonEmpty: true, FailOnMessages: true, Concurrency: 16, Notes: "non-empty"}},
		{region: "eu-west-1,", wantErr: `--region "": not a region name; use e.g. eu-west-1 or a comma-separated list`},
		{region: "EU", wantErr: `--region "EU": not a region name; use e.g. eu-west-1 or a comma-separated list`},
		{args: "--concurrency 0", wantErr: "--concurrency must be between 1 and 64, got 0"},
		{args: "--prefix a/b", wantErr: `--prefix "a/b": a queue name prefix is 1-80 letters, digits, - or _`},
	}
	for _, tc := range tests {
		t.Run(tc.region+" "+tc.args, func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			d.Global.Region = tc.region
			newCmd := func(runF func(*LsOptions) error) *cobra.Command { return NewCmdLs(d, runF) }
			cmdtest.CheckParse(t, newCmd, strings.Fields(tc.args), tc.want, tc.wantErr, cmpopts.IgnoreUnexported(LsOptions{}))
		})
	}
}
