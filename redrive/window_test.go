package redrive

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/redrive/window"
	"github.com/mfdlq/mfdlq/selection"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// windowSetup is a DLQ of 5 messages whose source is read by a function
// whose environment names a Powertools-style table with TTL on
// "expiration" and a one-hour window (its latest record expires in 1h-1s
// of clock), all against moto.
type windowSetup struct {
	env   *Env
	dlq   *sqsapi.Queue
	fn    string
	table string
	said  *[]string
}

func newWindowSetup(t *testing.T, clock time.Time, envVar string) windowSetup {
	t.Helper()
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("win")
	srcURL, dlqURL, err := seed.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := seed.Send(ctx, dlqURL, []string{`{"order_id":1}`, `{"order_id":2}`, `{"order_id":3}`, `{"order_id":4}`, `{"order_id":5}`}, nil); err != nil {
		t.Fatal(err)
	}
	c := sqsapi.New(cfg)
	src, _ := sqsapi.Resolve(ctx, c, srcURL, localaws.Region)
	dlq, err := sqsapi.Resolve(ctx, c, dlqURL, localaws.Region)
	if err != nil {
		t.Fatal(err)
	}
	l := lambda.NewFromConfig(cfg)
	fn := name + "-consumer"
	arn, err := localaws.CreateFunction(ctx, cfg, fn, localaws.HandlerZip("None"))
	if err != nil {
		t.Fatal(err)
	}
	table := name + "-idempotency"
	if envVar != "" {
		if _, err := l.UpdateFunctionConfiguration(ctx, &lambda.UpdateFunctionConfigurationInput{FunctionName: aws.String(arn),
			Environment: &ltypes.Environment{Variables: map[string]string{envVar: table, "LOG_LEVEL": "INFO"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.CreateEventSourceMapping(ctx, &lambda.CreateEventSourceMappingInput{EventSourceArn: aws.String(src.ARN), FunctionName: aws.String(arn)}); err != nil {
		t.Fatal(err)
	}
	db := dynamodb.NewFromConfig(cfg)
	makePowertoolsTable(t, db, table, clock.Add(time.Hour-time.Second), clock.Add(10*time.Minute))
	var said []string
	say := func(f string, a ...any) { said = append(said, fmt.Sprintf(f, a...)) }
	env := &Env{SQS: c, Region: cfg.Region, Now: func() time.Time { return clock }, Info: say, Warn: say,
		Lambda:   func(context.Context) (LambdaClient, error) { return l, nil },
		DynamoDB: func(context.Context) (idempotency.DynamoDB, error) { return db, nil }}
	return windowSetup{env: env, dlq: dlq, fn: fn, table: table, said: &said}
}

// makePowertoolsTable is Powertools' table: id, status, expiration (epoch
// seconds) with TTL on expiration.
func makePowertoolsTable(t *testing.T, db *dynamodb.Client, name string, expiries ...time.Time) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: dtypes.BillingModePayPerRequest,
		AttributeDefinitions: []dtypes.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: dtypes.ScalarAttributeTypeS}},
		KeySchema:            []dtypes.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: dtypes.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
		TimeToLiveSpecification: &dtypes.TimeToLiveSpecification{AttributeName: aws.String("expiration"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	for i, e := range expiries {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]dtypes.AttributeValue{
			"id": &dtypes.AttributeValueMemberS{Value: "cobro:" + strconv.Itoa(i)}, "status": &dtypes.AttributeValueMemberS{Value: "COMPLETED"},
			"expiration": &dtypes.AttributeValueMemberN{Value: strconv.FormatInt(e.Unix(), 10)}}}); err != nil {
			t.Fatal(err)
		}
	}
}

// planWindow resolves the redrive of s's DLQ and runs the window check.
func planWindow(t *testing.T, s windowSetup, req Request) (*Plan, error) {
	t.Helper()
	p, err := Resolve(context.Background(), s.env, req, s.dlq)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.compileSelection(nil); err != nil {
		t.Fatal(err)
	}
	return p, checkWindow(context.Background(), s.env, p)
}

// Messages that failed two hours ago, a consumer whose one-hour window
// the store's records show: a plain redrive refuses, naming the window and
// the count; keep and move plan on, saying which.
func TestWindowBeyondRefuses(t *testing.T) {
	clock := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	s := newWindowSetup(t, clock, "POWERTOOLS_IDEMPOTENCY_TABLE")
	_, err := planWindow(t, s, Request{})
	var rf *Refusal
	if !errors.As(err, &rf) {
		t.Fatalf("plain redrive: %v, want a refusal", err)
	}
	want := "5 of 5 looked at failed more than 1h ago, beyond " + s.fn + "'s idempotency window of 1h (" + s.table + ", TTL on expiration): any that were partly processed will repeat their effects; pass --beyond-window keep to leave them in the DLQ, or --beyond-window move to move them anyway"
	if rf.Reason != want {
		t.Fatalf("refusal:\n%s\nwant\n%s", rf.Reason, want)
	}
	p, err := planWindow(t, s, Request{BeyondWindow: window.BeyondKeep})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		"idempotency: " + s.fn + "'s store (POWERTOOLS_IDEMPOTENCY_TABLE) " + s.table + ", TTL on expiration, window 1h (estimated from 2 of 2 records: the largest expiration ahead of now, a lower bound if the consumer was idle)",
		"5 of 5 looked at failed more than 1h ago, beyond " + s.fn + "'s idempotency window of 1h (" + s.table + ", TTL on expiration): any that were partly processed will repeat their effects; --beyond-window keep: they stay in the DLQ, journaled and counted (from the sample; the move decides on each by its age)",
	}
	if d := cmp.Diff(lines, p.WindowLines()); d != "" {
		t.Fatalf("plan lines (-want +got):\n%s", d)
	}
	if p.Window.Length != time.Hour-time.Second || p.Window.Given {
		t.Fatalf("window %v given %v, want the estimate 59m59s", p.Window.Length, p.Window.Given)
	}
	if p, err = planWindow(t, s, Request{BeyondWindow: window.BeyondMove}); err != nil || !strings.HasSuffix(p.WindowLines()[1], "--beyond-window move: they move anyway (from the sample; the move counts them all)") {
		t.Fatalf("move: %v, %q", err, p.WindowLines())
	}
	// --idempotency-window says it outright: 3h covers them.
	if p, err = planWindow(t, s, Request{IdempotencyWindow: 3 * time.Hour}); err != nil || p.WindowLines()[1] != "none of the 5 looked at failed more than 3h ago: all within the window (the move counts any beyond it)" {
		t.Fatalf("--idempotency-window 3h: %v, %q", err, p.WindowLines())
	}
}

// Fresh messages: within the window, no refusal and no question.
func TestWindowWithin(t *testing.T) {
	clock := time.Now()
	s := newWindowSetup(t, clock, "IDEMPOTENCY_TABLE")
	p, err := planWindow(t, s, Request{})
	if err != nil || p.Window.Beyond != 0 || p.Window.Looked != 5 {
		t.Fatalf("fresh messages: %v, %+v", err, p.Window)
	}
	// A selection counts only what it selects (three hours on, the
	// records' expiries are behind: the window is given).
	s.env.Now = func() time.Time { return clock.Add(3 * time.Hour) }
	if _, err := planWindow(t, s, Request{Selection: selection.Selection{Filter: ".Body.order_id == 1"}, IdempotencyWindow: time.Hour}); err == nil || !strings.Contains(err.Error(), "1 of 1 looked at") {
		t.Fatalf("selection of one: %v", err)
	}
}

// A table that does not exist (or may not be read) is a warning and a
// window not known, never an error; a consumer whose environment names no
// table is "no store found".
func TestWindowUnreadAndAbsent(t *testing.T) {
	clock := time.Now().Add(2 * time.Hour)
	s := newWindowSetup(t, clock, "")
	p, err := planWindow(t, s, Request{})
	if err != nil || p.Window != nil || !strings.HasPrefix(p.WindowLines()[0], "idempotency: no store found (no consumer's environment names one)") {
		t.Fatalf("no table named: %v, %v", err, p.WindowLines())
	}
	p, err = planWindow(t, s, Request{IdempotencyTable: "no-such-table"})
	if err != nil || p.Window.Length != 0 {
		t.Fatalf("missing table: %v, %+v; want a window not known, no error", err, p.Window)
	}
	if l := p.WindowLines()[0]; !strings.HasPrefix(l, "idempotency: named by --idempotency-table no-such-table, window not known: it cannot be read (") {
		t.Fatalf("missing table line: %q", l)
	}
	warned := strings.Join(*s.said, "\n")
	if !strings.Contains(warned, "idempotency: no-such-table cannot be fully read") || !strings.Contains(warned, "--idempotency-window D says it") {
		t.Fatalf("warnings: %q", warned)
	}
	// The table unread but the window given: the count goes on.
	if _, err = planWindow(t, s, Request{IdempotencyTable: "no-such-table", IdempotencyWindow: time.Hour}); err == nil {
		t.Fatal("unread table, --idempotency-window 1h, messages 2h old: want the refusal")
	}
}
