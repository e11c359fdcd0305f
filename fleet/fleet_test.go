package fleet

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/internal/stsdeny"
)

func TestMain(m *testing.M) { localaws.Wrap(m).Run() }

// randomAccount is a 12-digit account id of this test alone: moto keeps
// one organisation per management account, and the tests share a server.
func randomAccount() string {
	n, _ := rand.Int(rand.Reader, big.NewInt(8e11))
	return fmt.Sprintf("%012d", n.Int64()+1e11)
}

// assumed is a configuration in account through moto's AssumeRole (which
// moto grants for any role): what the credentials of that account are.
func assumed(t *testing.T, base aws.Config, account string) aws.Config {
	t.Helper()
	o := Opener{Base: base, STS: func(c aws.Config) STSAPI { return sts.NewFromConfig(c) }}
	cfg, err := o.Open(context.Background(), &Account{ID: account, Role: RoleARN("aws", account, "admin")})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestOrgAccountsPagesAndNamesTheInactive makes an organisation of 23
// accounts (two pages of 20) and closes one: every active account comes
// back with its role, the closed one as an Unreadable.
func TestOrgAccountsPagesAndNamesTheInactive(t *testing.T) {
	ctx := context.Background()
	mgmt := assumed(t, localaws.Config(t), randomAccount())
	org := organizations.NewFromConfig(mgmt)
	if _, err := org.CreateOrganization(ctx, &organizations.CreateOrganizationInput{}); err != nil {
		t.Fatal(err)
	}
	var closed string
	for i := range 22 {
		out, err := org.CreateAccount(ctx, &organizations.CreateAccountInput{AccountName: aws.String(fmt.Sprint("team-", i)), Email: aws.String(fmt.Sprintf("t%d@example.com", i))})
		if err != nil {
			t.Fatal(err)
		}
		if i == 5 {
			closed = aws.ToString(out.CreateAccountStatus.AccountId)
		}
	}
	if _, err := org.CloseAccount(ctx, &organizations.CloseAccountInput{AccountId: aws.String(closed)}); err != nil {
		t.Fatal(err)
	}
	calls := &countingOrg{c: org}
	active, others, err := OrgAccounts(ctx, calls, "aws", "mfdlq-reader")
	if err != nil {
		t.Fatal(err)
	}
	if len(active) != 22 { // 21 created and the management account
		t.Errorf("%d active accounts, want 22", len(active))
	}
	if calls.n < 2 {
		t.Errorf("%d ListAccounts calls for 23 accounts, want 2 pages", calls.n)
	}
	for _, a := range active {
		if a.ID == closed || a.Role != "arn:aws:iam::"+a.ID+":role/mfdlq-reader" {
			t.Errorf("active %+v", a)
		}
	}
	if len(others) != 1 || others[0].Account != closed || others[0].Code != "SUSPENDED" || !others[0].Skipped {
		t.Errorf("others %+v, want %s SUSPENDED, skipped", others, closed)
	}
	if failed, skipped := Split(others); len(failed) != 0 || len(skipped) != 1 {
		t.Errorf("split: %d failed, %d skipped; want a closed account skipped, not failed", len(failed), len(skipped))
	}
}

type countingOrg struct {
	c OrganizationsAPI
	n int
}

func (c *countingOrg) ListAccounts(ctx context.Context, in *organizations.ListAccountsInput, f ...func(*organizations.Options)) (*organizations.ListAccountsOutput, error) {
	c.n++
	return c.c.ListAccounts(ctx, in, f...)
}

// TestEachReadsEveryAccountButTheDenied reads three accounts through the
// stand-in: the role missing in one is an Unreadable naming it, the two
// others are read in their own account (the queue each holds, no other).
func TestEachReadsEveryAccountButTheDenied(t *testing.T) {
	ctx := context.Background()
	base := localaws.Config(t)
	p, err := stsdeny.New(localaws.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	ids := []string{randomAccount(), randomAccount(), randomAccount()}
	name := localaws.UniqueName("fleet")
	for _, id := range ids {
		if _, err := sqs.NewFromConfig(assumed(t, base, id)).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + "-" + id)}); err != nil {
			t.Fatal(err)
		}
	}
	p.DenyRole(RoleARN("aws", ids[1], "reader"))
	viaProxy := base.Copy()
	viaProxy.BaseEndpoint = aws.String(srv.URL)
	o := Opener{Base: viaProxy, STS: func(c aws.Config) STSAPI { return sts.NewFromConfig(c) }}
	var accounts []Account
	for _, id := range ids {
		accounts = append(accounts, Account{ID: id, Role: RoleARN("aws", id, "reader")})
	}
	var mu sync.Mutex
	seen := map[string][]string{}
	bad := Each(ctx, accounts, []string{localaws.Region}, 2, o.Open, func(ctx context.Context, s Scope) error {
		out, err := sqs.NewFromConfig(s.Config).ListQueues(ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String(name)})
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		seen[s.Account.ID] = out.QueueUrls
		return nil
	})
	if len(bad) != 1 || bad[0].Account != ids[1] || bad[0].Code != "AccessDenied" || !strings.Contains(bad[0].Reason, ":role/reader") {
		t.Fatalf("unreadable %+v, want %s AccessDenied", bad, ids[1])
	}
	for _, id := range []string{ids[0], ids[2]} {
		if len(seen[id]) != 1 || !strings.HasSuffix(seen[id][0], "/"+id+"/"+name+"-"+id) {
			t.Errorf("account %s listed %v, want its own queue only", id, seen[id])
		}
	}
	if _, ok := seen[ids[1]]; ok {
		t.Errorf("the denied account was read")
	}
}

// TestUnreadableLabel: an account by its id, a profile by its name when
// its account was never known, the region after either.
func TestUnreadableLabel(t *testing.T) {
	for u, want := range map[Unreadable]string{
		{Account: "111111111111"}:                       "account 111111111111",
		{Account: "111111111111", Region: "eu-west-1"}:  "account 111111111111 eu-west-1",
		{Profile: "pay-prod", Region: "us-east-1"}:      "profile pay-prod us-east-1",
		{Account: "222222222222", Profile: "ship-prod"}: "account 222222222222",
	} {
		if got := u.Label(); got != want {
			t.Errorf("%+v: Label = %q, want %q", u, got, want)
		}
	}
}
