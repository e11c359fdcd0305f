package cmd

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/internal/stsdeny"
)

// The script commands of a fleet: accounts of the script's own (moto
// keeps one organisation per management account, and every script shares
// one server), an organisation, queues in an account, an operator's
// credentials in one, and the stand-in that refuses a role.
func randomAccountID() string {
	n, _ := rand.Int(rand.Reader, big.NewInt(8e11))
	return fmt.Sprintf("%012d", n.Int64()+1e11)
}

// inAccount is the local AWS configuration of a session in account
// (moto's AssumeRole grants any role), named session.
func inAccount(account, session string) aws.Config {
	cfg := fleetBase.Copy()
	cfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(fleetBase),
		"arn:aws:iam::"+account+":role/oncall", func(o *stscreds.AssumeRoleOptions) { o.RoleSessionName = session }))
	return cfg
}

// account VAR... sets each VAR to an account id of this script alone.
func cmdAccount(ts *testscript.TestScript, neg bool, args []string) {
	for _, v := range args {
		ts.Setenv(v, randomAccountID())
	}
}

// org-new MGMT VAR... makes an organisation managed by a new account (its
// id in MGMT) with one member account per VAR (their ids in them).
func cmdOrgNew(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: org-new MGMT [VAR...]")
	}
	ctx := context.Background()
	mgmt := randomAccountID()
	ts.Setenv(args[0], mgmt)
	org := organizations.NewFromConfig(inAccount(mgmt, "setup"))
	_, err := org.CreateOrganization(ctx, &organizations.CreateOrganizationInput{})
	ts.Check(err)
	for i, v := range args[1:] {
		out, err := org.CreateAccount(ctx, &organizations.CreateAccountInput{AccountName: aws.String(strings.ToLower(v)),
			Email: aws.String(fmt.Sprintf("%s-%d@example.com", mgmt, i))})
		ts.Check(err)
		ts.Setenv(v, aws.ToString(out.CreateAccountStatus.AccountId))
	}
}

// org-close MGMT ACCOUNT closes a member account (SUSPENDED).
func cmdOrgClose(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: org-close MGMT ACCOUNT")
	}
	_, err := organizations.NewFromConfig(inAccount(args[0], "setup")).CloseAccount(context.Background(), &organizations.CloseAccountInput{AccountId: aws.String(args[1])})
	ts.Check(err)
}

// fleet-pair ACCOUNT SOURCE DLQ N [RETENTION] creates SOURCE redriving to
// DLQ in ACCOUNT and puts N messages in the DLQ.
func cmdFleetPair(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 && len(args) != 5 {
		ts.Fatalf("usage: fleet-pair ACCOUNT SOURCE DLQ N [DLQ_RETENTION]")
	}
	n, err := strconv.Atoi(args[3])
	ts.Check(err)
	s := localaws.NewSeeder(inAccount(args[0], "setup"))
	ctx := context.Background()
	if len(args) == 5 {
		_, err := s.CreateQueue(ctx, args[2], map[string]string{"MessageRetentionPeriod": args[4]})
		ts.Check(err)
	}
	_, dlq, err := s.CreatePair(ctx, args[1], args[2], 3)
	ts.Check(err)
	var bodies []string
	for i := range n {
		bodies = append(bodies, fmt.Sprintf(`{"order":%d}`, i))
	}
	if n > 0 {
		ts.Check(s.Send(ctx, dlq, bodies, nil))
	}
}

// as ACCOUNT SESSION makes the next commands run as the role session
// SESSION of the role oncall in ACCOUNT: another operator, elsewhere.
func cmdAs(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: as ACCOUNT SESSION")
	}
	c, err := inAccount(args[0], args[1]).Credentials.Retrieve(context.Background())
	ts.Check(err)
	ts.Setenv("AWS_ACCESS_KEY_ID", c.AccessKeyID)
	ts.Setenv("AWS_SECRET_ACCESS_KEY", c.SecretAccessKey)
	ts.Setenv("AWS_SESSION_TOKEN", c.SessionToken)
}

// sts-deny ROLE_ARN|ACCOUNT... points the next commands at the stand-in
// (internal/stsdeny) in front of the local AWS, which refuses AssumeRole
// of each role ARN, and of every role of each account (a suspended one).
func cmdSTSDeny(ts *testscript.TestScript, neg bool, args []string) {
	p, err := stsdeny.New(scriptEndpoint)
	ts.Check(err)
	for _, a := range args {
		if strings.HasPrefix(a, "arn:") {
			p.DenyRole(a)
		} else {
			p.DenyAccount(a)
		}
	}
	srv := httptest.NewServer(p)
	ts.Defer(srv.Close)
	ts.Setenv("AWS_ENDPOINT_URL", srv.URL)
}

// tag-raw ACCOUNT QUEUE KEY VALUE sets a tag on QUEUE in ACCOUNT as the
// console would: whatever VALUE holds.
func cmdTagRaw(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: tag-raw ACCOUNT QUEUE KEY VALUE")
	}
	ctx := context.Background()
	c := sqs.NewFromConfig(inAccount(args[0], "console"))
	u, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(args[1])})
	ts.Check(err)
	_, err = c.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: u.QueueUrl, Tags: map[string]string{args[2]: args[3]}})
	ts.Check(err)
}

// profiles FILE NAME=ACCOUNT... writes a shared credentials file with one
// profile per account (a session's keys in it), for --profiles.
func cmdProfiles(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: profiles FILE NAME=ACCOUNT...")
	}
	var b strings.Builder
	for _, a := range args[1:] {
		name, account, _ := strings.Cut(a, "=")
		c, err := inAccount(account, name).Credentials.Retrieve(context.Background())
		ts.Check(err)
		fmt.Fprintf(&b, "[%s]\naws_access_key_id = %s\naws_secret_access_key = %s\naws_session_token = %s\n\n", name, c.AccessKeyID, c.SecretAccessKey, c.SessionToken)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o600))
}

// fleet-queue ACCOUNT NAME [ATTR=VALUE...] creates a queue in ACCOUNT.
func cmdFleetQueue(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: fleet-queue ACCOUNT NAME [ATTR=VALUE...]")
	}
	attrs := map[string]string{}
	for _, a := range args[2:] {
		k, v, _ := strings.Cut(a, "=")
		attrs[k] = v
	}
	_, err := localaws.NewSeeder(inAccount(args[0], "setup")).CreateQueue(context.Background(), args[1], attrs)
	ts.Check(err)
}

// fleet-delete ACCOUNT NAME deletes a queue in ACCOUNT.
func cmdFleetDelete(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: fleet-delete ACCOUNT NAME")
	}
	ctx := context.Background()
	c := sqs.NewFromConfig(inAccount(args[0], "setup"))
	u, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(args[1])})
	ts.Check(err)
	_, err = c.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: u.QueueUrl})
	ts.Check(err)
}
