// Package fleet is the accounts a fleet-wide listing reads (mfdlq ls and
// check --all with --accounts or --profiles): the organisation's accounts
// through Organizations, each reached by assuming one role in it, or one
// shared-config profile per account. It only reads: opening an account
// is an AssumeRole (or a GetCallerIdentity for a profile), and what runs in
// it is the caller's read-only listing.
//
// An account that cannot be read — the role missing or refusing, the
// account suspended, a region denied — is an Unreadable of its own; it
// never stops the others.
package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	orgtypes "github.com/aws/aws-sdk-go-v2/service/organizations/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
)

// Account is one account of the fleet and how it is reached: through Role
// (an ARN) or through Profile. ID is "" for a profile until it is opened.
type Account struct {
	ID      string
	Name    string // the organisation's name for it, or the profile
	Role    string
	Profile string
	// State is the organisation's state for it (ACTIVE, SUSPENDED…); ""
	// when it did not come from Organizations.
	State string
}

// Label names the account for a person: its id, or its profile.
func (a Account) Label() string {
	switch {
	case a.ID != "":
		return a.ID
	case a.Profile != "":
		return "profile " + a.Profile
	}
	return "the account in use"
}

// Unreadable is an account, or one region of it, that was not read, and
// why. Code is the AWS error code (AccessDenied) or the account's state.
type Unreadable struct {
	Account string `json:"account"`
	Profile string `json:"profile,omitempty"`
	Region  string `json:"region,omitempty"`
	Code    string `json:"code"`
	Reason  string `json:"reason"`
	// Skipped is an account the organisation lists as not ACTIVE
	// (suspended, closing, closed, not yet active): there is nothing to
	// read in it, so it is named and left out — not a failure.
	Skipped bool `json:"-"`
}

// Label names what was not read for a person: "account ID REGION", or
// "profile NAME REGION" for a profile whose account was never known.
func (u Unreadable) Label() string {
	who := "account " + u.Account
	if u.Account == "" {
		who = "profile " + u.Profile
	}
	if u.Region != "" {
		who += " " + u.Region
	}
	return who
}

// Split parts the accounts that could not be read from those skipped
// for their organisation state; both non-nil.
func Split(all []Unreadable) (failed, skipped []Unreadable) {
	failed, skipped = []Unreadable{}, []Unreadable{}
	for _, u := range all {
		if u.Skipped {
			skipped = append(skipped, u)
		} else {
			failed = append(failed, u)
		}
	}
	return failed, skipped
}

// OrganizationsAPI is the call that lists the organisation's accounts,
// allowed in the management account or a delegated administrator.
type OrganizationsAPI interface {
	ListAccounts(ctx context.Context, in *organizations.ListAccountsInput, optFns ...func(*organizations.Options)) (*organizations.ListAccountsOutput, error)
}

// STSAPI is the STS calls of opening an account.
type STSAPI interface {
	stscreds.AssumeRoleAPIClient
	GetCallerIdentity(ctx context.Context, in *sts.GetCallerIdentityInput, optFns ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error)
}

var (
	_ OrganizationsAPI = (*organizations.Client)(nil)
	_ STSAPI           = (*sts.Client)(nil)
)

// OrgAccounts pages through the organisation's accounts (20 a page,
// ListAccounts' maximum) and returns the ACTIVE ones, with role (a role
// name) to assume in each, and the others as Skipped Unreadables: a
// suspended, closing or closed account is named, never silently left out,
// and never counted as a failure (a scheduled fleet check would always
// fail). The account's State is read, its older Status when State is
// absent.
func OrgAccounts(ctx context.Context, c OrganizationsAPI, partition, role string) ([]Account, []Unreadable, error) {
	in := &organizations.ListAccountsInput{MaxResults: aws.Int32(20)}
	var active []Account
	var others []Unreadable
	for {
		page, err := c.ListAccounts(ctx, in)
		if err != nil {
			return nil, nil, fmt.Errorf("list the organisation's accounts (run from the management account or a delegated administrator, or give --accounts ID,ID): %w", err)
		}
		for _, a := range page.Accounts {
			state := string(a.State)
			if state == "" {
				state = string(a.Status) // before State existed
			}
			id := aws.ToString(a.Id)
			if state != string(orgtypes.AccountStateActive) {
				others = append(others, Unreadable{Account: id, Code: state, Skipped: true,
					Reason: "the organisation lists it as " + state + ": skipped, nothing to read in it"})
				continue
			}
			active = append(active, Account{ID: id, Name: aws.ToString(a.Name), State: state, Role: RoleARN(partition, id, role)})
		}
		if aws.ToString(page.NextToken) == "" {
			break
		}
		in.NextToken = page.NextToken
	}
	sort.Slice(active, func(i, j int) bool { return active[i].ID < active[j].ID })
	return active, others, nil
}

// RoleARN is the ARN of the role named name (it may hold a path) in account.
func RoleARN(partition, account, name string) string {
	if partition == "" {
		partition = "aws"
	}
	return "arn:" + partition + ":iam::" + account + ":role/" + name
}

// SessionName is the role session mfdlq opens in each account: CloudTrail
// in that account shows it beside the caller's identity.
const SessionName = "mfdlq-fleet"

// Opener opens one account: a configuration whose credentials reach it.
type Opener struct {
	// Base is the configuration in use: the credentials that assume the
	// role in each account.
	Base aws.Config
	// STS builds the STS client of a configuration (sts.NewFromConfig).
	STS func(aws.Config) STSAPI
	// Profile loads a shared-config profile.
	Profile func(ctx context.Context, profile string) (aws.Config, error)
}

// Open returns a configuration for a, and fills a.ID for a profile. A
// role is assumed at once, so a refusal is known before any listing.
func (o Opener) Open(ctx context.Context, a *Account) (aws.Config, error) {
	switch {
	case a.Role != "":
		cfg := o.Base.Copy()
		p := stscreds.NewAssumeRoleProvider(o.STS(o.Base), a.Role, func(ao *stscreds.AssumeRoleOptions) {
			ao.RoleSessionName = SessionName
			ao.Duration = time.Hour
		})
		cfg.Credentials = aws.NewCredentialsCache(p)
		if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
			return aws.Config{}, fmt.Errorf("assume %s: %w", a.Role, err)
		}
		return cfg, nil
	case a.Profile != "":
		cfg, err := o.Profile(ctx, a.Profile)
		if err != nil {
			return aws.Config{}, fmt.Errorf("profile %s: %w", a.Profile, err)
		}
		id, err := o.STS(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			return aws.Config{}, fmt.Errorf("profile %s: who am I: %w", a.Profile, err)
		}
		a.ID = aws.ToString(id.Account)
		return cfg, nil
	}
	return o.Base, nil
}

// Scope is one account in one region, ready to read.
type Scope struct {
	Account Account
	Region  string // "" for the configuration's own
	Config  aws.Config
}

// Workers is how many accounts are read at once: each runs its own
// bounded listing (inventory's concurrency), and SQS's, CloudWatch's and
// Lambda's limits are per account and region, so accounts add up without
// sharing a quota; STS's AssumeRole and Organizations are called once per
// account and once per page.
const Workers = 4

// Each opens every account (at most workers at once) and calls fn for each
// of its regions in turn. An account that cannot be opened, or a region
// where fn fails, is an Unreadable; the others go on. The Unreadables come
// back sorted by account and region.
func Each(ctx context.Context, accounts []Account, regions []string, workers int, open func(context.Context, *Account) (aws.Config, error), fn func(context.Context, Scope) error) []Unreadable {
	if len(regions) == 0 {
		regions = []string{""}
	}
	var (
		mu  sync.Mutex
		out []Unreadable
		wg  sync.WaitGroup
	)
	fail := func(a Account, region string, err error) {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, Unreadable{Account: a.ID, Profile: a.Profile, Region: region, Code: Code(err), Reason: err.Error()})
	}
	sem := make(chan struct{}, max(workers, 1))
	for i := range accounts {
		a := accounts[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			cfg, err := open(ctx, &a)
			if err != nil {
				fail(a, "", err)
				return
			}
			for _, r := range regions {
				c := cfg.Copy()
				if r != "" {
					c.Region = r
				}
				if err := fn(ctx, Scope{Account: a, Region: r, Config: c}); err != nil {
					if ctx.Err() != nil {
						return
					}
					fail(a, r, err)
				}
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(out, func(x, y Unreadable) int {
		if x.Account != y.Account {
			return cmpStr(x.Account, y.Account)
		}
		if x.Profile != y.Profile {
			return cmpStr(x.Profile, y.Profile)
		}
		return cmpStr(x.Region, y.Region)
	})
	return out
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Code is the AWS error code of err, "error" when it has none.
func Code(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return "error"
}
