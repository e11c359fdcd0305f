package fleet

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNamesValidate: the accounts a fleet-wide read names, parsed once
// (a repeated id read once), or the error that names the fix.
func TestNamesValidate(t *testing.T) {
	for _, c := range []struct {
		in      Names
		ids     []string
		wantErr string
	}{
		{in: Names{Accounts: "111111111111,222222222222,111111111111", RoleName: "mfdlq-reader"}, ids: []string{"111111111111", "222222222222"}},
		{in: Names{Accounts: "all", RoleName: "ops/mfdlq-reader"}},
		{in: Names{Profiles: []string{"pay-prod", "ship-prod"}}},
		{in: Names{Accounts: "all"}, wantErr: "--accounts needs --role-name: the role mfdlq assumes in each account"},
		{in: Names{Accounts: "1234", RoleName: "r"}, wantErr: `--accounts: "1234" is not a 12-digit account id; give ID,ID or all`},
		{in: Names{Accounts: "all", RoleName: "r", Profiles: []string{"p"}}, wantErr: "--accounts and --profiles are two ways to name the accounts: give one"},
	} {
		n := c.in
		err := n.Validate()
		switch {
		case c.wantErr != "" && (err == nil || err.Error() != c.wantErr):
			t.Errorf("%+v: error %v, want %q", c.in, err, c.wantErr)
		case c.wantErr == "" && err != nil:
			t.Errorf("%+v: %v", c.in, err)
		case c.wantErr == "" && !cmp.Equal(n.ids, c.ids):
			t.Errorf("%+v: ids %v, want %v", c.in, n.ids, c.ids)
		}
	}
}
