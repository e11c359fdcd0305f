package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/mfdlq/mfdlq/cmd/browse"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/fleet"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestBrowseStepActsInTheDLQsAccount: a view opened across accounts runs
// its steps on another account's DLQ with the role it read that account
// with, not with the operator's own credentials — which cannot reach the
// queue (moto, as SQS, answers for the account of the caller's keys).
func TestBrowseStepActsInTheDLQsAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := localaws.Config(t)
	in := func(account, session string) aws.Config {
		cfg := base.Copy()
		cfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(base),
			"arn:aws:iam::"+account+":role/oncall", func(o *stscreds.AssumeRoleOptions) { o.RoleSessionName = session }))
		return cfg
	}
	ana, bo := randomAccountID(), randomAccountID()
	name := localaws.UniqueName("bstep")
	seed := localaws.NewSeeder(in(ana, "setup"))
	_, dlq, err := seed.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := seed.Send(ctx, dlq, []string{`{"order":1}`, `{"order":2}`}, nil); err != nil {
		t.Fatal(err)
	}

	d, _, _ := testDeps(t, false)
	operator := in(bo, "bo")
	d.AWS = func(context.Context) (aws.Config, error) { return operator, nil }
	d.WireClients()
	ff := &cmdutil.FleetFlags{Names: fleet.Names{Accounts: ana, RoleName: "mfdlq-reader"}}
	if err := ff.Validate(); err != nil {
		t.Fatal(err)
	}
	b := browse.NewBackend(d, runDeps, ff, nil)
	f, err := b.Fleet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var arn string
	for _, q := range f.DLQs {
		if q.Queue == name+"-dlq" {
			arn = q.ARN
		}
	}
	if !strings.Contains(arn, ":"+ana+":") {
		t.Fatalf("the fleet of %s lists %+v, want %s-dlq in it", ana, f.DLQs, name)
	}
	res, err := b.Contain(ctx, arn)
	if err != nil || res == nil {
		t.Fatalf("contain on %s from a view opened by account %s: %v", arn, bo, err)
	}
	if res.DLQ.Visible != 2 {
		t.Fatalf("contain saw %d visible in %s, want the 2 of ana's DLQ", res.DLQ.Visible, arn)
	}
}
