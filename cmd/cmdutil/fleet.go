package cmdutil

import (
	"context"
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

// FleetFlags bind fleet.Names — the accounts a fleet-wide read covers
// (ls, check --all, browse) — to --accounts, --role-name and --profiles.
type FleetFlags struct{ fleet.Names }

// Bind adds --accounts, --role-name and --profiles to fs.
func (f *FleetFlags) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.Accounts, "accounts", "", "read these accounts (ID,ID…), or all of the organisation's ACTIVE accounts (all); needs --role-name")
	fs.StringVar(&f.RoleName, "role-name", "", "the role to assume in each of --accounts (read-only: docs/iam.md)")
	fs.StringSliceVar(&f.Profiles, "profiles", nil, "read one account per shared-config profile (a,b,…), for people who keep one per account")
}

// Validate checks the flags before any AWS call: a usage error that names
// the fix.
func (f *FleetFlags) Validate() error {
	if err := f.Names.Validate(); err != nil {
		return UsageErrorf("%v", err)
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

// scopeClients are the read clients of one account and region: ls's, with
// the listing's generous retries (inventory.Retryer; docs/ls.md).
func scopeClients(cfg aws.Config) FleetScope {
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
			cfg, err := loadConfig(ctx, d.Global, r)
			if err != nil {
				return nil, err
			}
			if err := fn(ctx, scopeClients(cfg)); err != nil {
				return nil, err // fn names the region
			}
		}
		return []fleet.Unreadable{}, nil
	}
	base, err := d.AWS(ctx)
	if err != nil {
		return nil, err
	}
	accounts, unreadable, err := f.Resolve(ctx, d.Organizations, sqsapi.PartitionOf(base.Region))
	if err != nil {
		return nil, err
	}
	d.Infof("reading %s%s", plural.Of(len(accounts), "account"), regionsText(regions))
	o := fleet.Opener{Base: base, STS: d.FleetSTS, Profile: func(ctx context.Context, p string) (aws.Config, error) {
		g := *d.Global
		g.Profile = p
		return loadConfig(ctx, &g, g.Region)
	}}
	bad := fleet.Each(ctx, accounts, regions, fleet.Workers, o.Open, func(ctx context.Context, s fleet.Scope) error {
		sc := scopeClients(s.Config)
		sc.Account = s.Account.ID
		return fn(ctx, sc)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return append(unreadable, bad...), nil
}

func regionsText(regions []string) string {
	if len(regions) == 0 {
		return ""
	}
	return " in " + strings.Join(regions, ", ")
}
