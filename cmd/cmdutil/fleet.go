package cmdutil

import (
	"context"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/spf13/pflag"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/fleet"
	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Scoped is a fleet table's row (or header) with the account and the
// region in front when the listing spans several of them: ACCOUNT, REGION,
// then the row.
func Scoped(row []string, account, region string, accounts, regions bool) []string {
	if regions {
		row = append([]string{region}, row...)
	}
	if accounts {
		row = append([]string{account}, row...)
	}
	return row
}

// FleetFlags choose the accounts a fleet-wide read covers (ls, check
// --all, browse): --accounts with --role-name, or --profiles; neither is
// the account the credentials are in, as before.
type FleetFlags struct {
	Accounts string   // --accounts ID,ID|all
	RoleName string   // --role-name: the role assumed in each account
	Profiles []string // --profiles a,b: one shared-config profile per account
	ids      []string // --accounts parsed; nil for all
}

// Bind adds --accounts, --role-name and --profiles to fs.
func (f *FleetFlags) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.Accounts, "accounts", "", "read these accounts (ID,ID…), or all of the organisation's ACTIVE accounts (all); needs --role-name")
	fs.StringVar(&f.RoleName, "role-name", "", "the role to assume in each of --accounts (read-only: docs/iam.md)")
	fs.StringSliceVar(&f.Profiles, "profiles", nil, "read one account per shared-config profile (a,b,…), for people who keep one per account")
}

var (
	accountIDRE = regexp.MustCompile(`^\d{12}$`)
	roleNameRE  = regexp.MustCompile(`^([\w+=,.@-]+/)*[\w+=,.@-]{1,64}$`)
	profileRE   = regexp.MustCompile(`^[\w+=,.@:/-]{1,128}$`)
)

// Active tells whether the flags name other accounts than the one in use.
func (f *FleetFlags) Active() bool { return f.Accounts != "" || len(f.Profiles) > 0 }

// Validate checks the flags before any AWS call (a usage error names the
// fix) and parses --accounts.
func (f *FleetFlags) Validate() error {
	f.ids = nil
	switch {
	case f.Accounts != "" && len(f.Profiles) > 0:
		return UsageErrorf("--accounts and --profiles are two ways to name the accounts: give one")
	case f.Accounts != "" && f.RoleName == "":
		return UsageErrorf("--accounts needs --role-name: the role mfdlq assumes in each account")
	case f.RoleName != "" && f.Accounts == "":
		return UsageErrorf("--role-name is used with --accounts ID,ID|all")
	case f.RoleName != "" && !roleNameRE.MatchString(f.RoleName):
		return UsageErrorf("--role-name %q: a role name is 1-64 letters, digits and + = , . @ - _ (a path before it with /)", f.RoleName)
	}
	for _, p := range f.Profiles {
		if !profileRE.MatchString(p) {
			return UsageErrorf("--profiles: %q is not a profile name", p)
		}
	}
	if f.Accounts == "" || f.Accounts == "all" {
		return nil
	}
	seen := map[string]bool{}
	for _, id := range strings.Split(f.Accounts, ",") {
		id = strings.TrimSpace(id)
		if !accountIDRE.MatchString(id) {
			return UsageErrorf("--accounts: %q is not a 12-digit account id; give ID,ID or all", id)
		}
		if !seen[id] {
			seen[id] = true
			f.ids = append(f.ids, id)
		}
	}
	return nil
}

// FleetScope is one account and region to read, with its clients.
type FleetScope struct {
	Account string // the account's id ("" for the account in use before it is known)
	Region  string
	Clients inventory.Clients
	SQS     sqsapi.Client
	Lambda  *lambda.Client
	CW      *cloudwatch.Client
	// DynamoDB reads the consumers' idempotency stores (check --all).
	DynamoDB *dynamodb.Client
	// Config is the configuration the clients were built from: its
	// credentials reach Account (an assumed role, a profile).
	Config aws.Config
}

// ScopeClients are the read clients of one account and region: ls's, with
// the listing's generous retries (inventory.Retryer; docs/ls.md).
func ScopeClients(cfg aws.Config) FleetScope {
	retryer := inventory.Retryer
	cw := cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch, readWholeBody, func(o *cloudwatch.Options) { o.Retryer = retryer() })
	s := sqsapi.New(cfg, func(o *sqs.Options) { o.Retryer, o.RetryMaxAttempts = retryer(), 0 })
	l := lambda.NewFromConfig(cfg, func(o *lambda.Options) { o.Retryer = retryer() })
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.Retryer = retryer() })
	return FleetScope{Region: cfg.Region, SQS: s, Lambda: l, CW: cw, DynamoDB: db, Config: cfg,
		Clients: inventory.Clients{SQS: s, Metrics: cw, Alarms: cw, Lambda: l}}
}

// ReadFleet calls fn for every account and region the flags choose. Without
// --accounts or --profiles it is the account in use, region by region, as
// before: a failure there is the command's error. With them, an account
// or region that cannot be read is returned as a line of its own and the
// others are read (fleet.Each).
func (d *Deps) ReadFleet(ctx context.Context, f *FleetFlags, regions []string, fn func(context.Context, FleetScope) error) ([]fleet.Unreadable, error) {
	if !f.Active() {
		if len(regions) == 0 {
			regions = []string{""}
		}
		for _, r := range regions {
			cfg, err := LoadConfig(ctx, d.Global, r)
			if err != nil {
				return nil, err
			}
			if err := fn(ctx, ScopeClients(cfg)); err != nil {
				return nil, err // fn names the region
			}
		}
		return []fleet.Unreadable{}, nil
	}
	base, err := d.AWS(ctx)
	if err != nil {
		return nil, err
	}
	accounts, unreadable, err := d.fleetAccounts(ctx, f, base)
	if err != nil {
		return nil, err
	}
	d.Infof("reading %s%s", plural.Of(len(accounts), "account"), regionsText(regions))
	o := fleet.Opener{Base: base, STS: d.FleetSTS, Profile: func(ctx context.Context, p string) (aws.Config, error) {
		g := *d.Global
		g.Profile = p
		return LoadConfig(ctx, &g, g.Region)
	}}
	bad := fleet.Each(ctx, accounts, regions, fleet.Workers, o.Open, func(ctx context.Context, s fleet.Scope) error {
		sc := ScopeClients(s.Config)
		sc.Account = s.Account.ID
		return fn(ctx, sc)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return append(unreadable, bad...), nil
}

// fleetAccounts are the accounts the flags name: --profiles, --accounts
// ID,ID, or the organisation's (all) with the inactive ones unreadable.
func (d *Deps) fleetAccounts(ctx context.Context, f *FleetFlags, base aws.Config) ([]fleet.Account, []fleet.Unreadable, error) {
	var out []fleet.Account
	part := sqsapi.PartitionOf(base.Region)
	switch {
	case len(f.Profiles) > 0:
		for _, p := range f.Profiles {
			out = append(out, fleet.Account{Profile: p, Name: p})
		}
	case f.Accounts == "all":
		org, err := d.Organizations(ctx)
		if err != nil {
			return nil, nil, err
		}
		return fleet.OrgAccounts(ctx, org, part, f.RoleName)
	default:
		for _, id := range f.ids {
			out = append(out, fleet.Account{ID: id, Role: fleet.RoleARN(part, id, f.RoleName)})
		}
	}
	return out, []fleet.Unreadable{}, nil
}

func regionsText(regions []string) string {
	if len(regions) == 0 {
		return ""
	}
	return " in " + strings.Join(regions, ", ")
}
