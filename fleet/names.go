package fleet

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Names are the accounts a fleet-wide read covers as the operator named
// them (ls, check --all, browse): Accounts (ID,ID or all) with RoleName,
// or Profiles; neither is the account the credentials are in. cmd binds
// the flags to it; Validate checks them before any AWS call.
type Names struct {
	Accounts string   // --accounts ID,ID|all
	RoleName string   // --role-name: the role assumed in each account
	Profiles []string // --profiles a,b: one shared-config profile per account
	ids      []string // Accounts parsed; nil for all
}

var (
	accountIDRE = regexp.MustCompile(`^\d{12}$`)
	roleNameRE  = regexp.MustCompile(`^([\w+=,.@-]+/)*[\w+=,.@-]{1,64}$`)
	profileRE   = regexp.MustCompile(`^[\w+=,.@:/-]{1,128}$`)
)

// Active tells whether n names other accounts than the one in use.
func (n *Names) Active() bool { return n.Accounts != "" || len(n.Profiles) > 0 }

// Validate checks the names (its error names the fix) and parses Accounts.
func (n *Names) Validate() error {
	n.ids = nil
	switch {
	case n.Accounts != "" && len(n.Profiles) > 0:
		return errors.New("--accounts and --profiles are two ways to name the accounts: give one")
	case n.Accounts != "" && n.RoleName == "":
		return errors.New("--accounts needs --role-name: the role mfdlq assumes in each account")
	case n.RoleName != "" && n.Accounts == "":
		return errors.New("--role-name is used with --accounts ID,ID|all")
	case n.RoleName != "" && !roleNameRE.MatchString(n.RoleName):
		return fmt.Errorf("--role-name %q: a role name is 1-64 letters, digits and + = , . @ - _ (a path before it with /)", n.RoleName)
	}
	for _, p := range n.Profiles {
		if !profileRE.MatchString(p) {
			return fmt.Errorf("--profiles: %q is not a profile name", p)
		}
	}
	if n.Accounts == "" || n.Accounts == "all" {
		return nil
	}
	seen := map[string]bool{}
	for _, id := range strings.Split(n.Accounts, ",") {
		id = strings.TrimSpace(id)
		if !accountIDRE.MatchString(id) {
			return fmt.Errorf("--accounts: %q is not a 12-digit account id; give ID,ID or all", id)
		}
		if !seen[id] {
			seen[id] = true
			n.ids = append(n.ids, id)
		}
	}
	return nil
}

// Resolve lists the accounts n names in partition: the profiles, the
// accounts given with their role, or the organisation's (all, through
// org) with the inactive ones unreadable.
func (n *Names) Resolve(ctx context.Context, org func(context.Context) (OrganizationsAPI, error), partition string) ([]Account, []Unreadable, error) {
	var out []Account
	switch {
	case len(n.Profiles) > 0:
		for _, p := range n.Profiles {
			out = append(out, Account{Profile: p, Name: p})
		}
	case n.Accounts == "all":
		c, err := org(ctx)
		if err != nil {
			return nil, nil, err
		}
		return OrgAccounts(ctx, c, partition, n.RoleName)
	default:
		for _, id := range n.ids {
			out = append(out, Account{ID: id, Role: RoleARN(partition, id, n.RoleName)})
		}
	}
	return out, []Unreadable{}, nil
}
