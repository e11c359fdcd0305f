package idempotency

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// makeTable creates a table keyed by id with TTL on ttlAttr ("" : off) and
// one item per expiry, each in attr.
func makeTable(t *testing.T, db *dynamodb.Client, ttlAttr, attr string, expiries ...time.Time) string {
	t.Helper()
	ctx := context.Background()
	name := localaws.UniqueName("idem")
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}}})
	if err != nil {
		t.Fatal(err)
	}
	if ttlAttr != "" {
		if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(ttlAttr), Enabled: aws.Bool(true)}}); err != nil {
			t.Fatal(err)
		}
	}
	for i, e := range expiries {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: "cobro:" + strconv.Itoa(i)}, "status": &types.AttributeValueMemberS{Value: "COMPLETED"},
			attr: &types.AttributeValueMemberN{Value: strconv.FormatInt(e.Unix(), 10)}}}); err != nil {
			t.Fatal(err)
		}
	}
	return name
}

func TestReadPowertoolsTable(t *testing.T) {
	db := dynamodb.NewFromConfig(localaws.Config(t))
	now := time.Now().UTC().Truncate(time.Second)
	// A one-hour window: the latest record written two minutes ago, an
	// older one, and one expired but not yet deleted by TTL.
	name := makeTable(t, db, "expiration", "expiration", now.Add(58*time.Minute), now.Add(20*time.Minute), now.Add(-3*time.Hour))
	s, err := Read(context.Background(), db, name, now)
	if err != nil {
		t.Fatal(err)
	}
	want := Store{Table: name, TTLStatus: "ENABLED", TTLAttribute: "expiration", Expiry: "expiration", Window: 58 * time.Minute, Looked: 3, Ahead: 2, Powertools: 2}
	if s != want {
		t.Fatalf("Read = %+v, want %+v", s, want)
	}
	if got := s.TTLText(); got != "TTL on expiration" {
		t.Errorf("TTLText = %q", got)
	}
}

func TestReadRunbookTableTTLOff(t *testing.T) {
	db := dynamodb.NewFromConfig(localaws.Config(t))
	now := time.Now().UTC().Truncate(time.Second)
	// No TTL: the window is read from Powertools' attribute; the runbook's
	// expira_en is not found then, so no item is ahead.
	name := makeTable(t, db, "", "expira_en", now.Add(24*time.Hour))
	s, err := Read(context.Background(), db, name, now)
	if err != nil {
		t.Fatal(err)
	}
	if s.TTLOn() || s.TTLStatus != "DISABLED" || s.Expiry != PowertoolsExpiry || s.Window != 0 || s.Looked != 1 || s.Ahead != 0 {
		t.Fatalf("Read = %+v, want TTL DISABLED, no item ahead", s)
	}
	if got := s.TTLText(); got != "TTL disabled" {
		t.Errorf("TTLText = %q", got)
	}
	// The runbook's table with TTL on expira_en: its window is read there.
	name = makeTable(t, db, "expira_en", "expira_en", now.Add(23*time.Hour+59*time.Minute))
	if s, err = Read(context.Background(), db, name, now); err != nil || s.Window != 23*time.Hour+59*time.Minute || s.Expiry != "expira_en" {
		t.Fatalf("Read = %+v, %v", s, err)
	}
}

func TestReadMissingTable(t *testing.T) {
	db := dynamodb.NewFromConfig(localaws.Config(t))
	_, err := Read(context.Background(), db, "no-such-table-"+localaws.UniqueName("x"), time.Now())
	if err == nil || !awserr.NotFound(err) {
		t.Fatalf("Read of a missing table: %v, want a not-found error", err)
	}
}

func TestTableFromEnv(t *testing.T) {
	for _, c := range []struct {
		vars        map[string]string
		table, name string
	}{
		{map[string]string{"POWERTOOLS_IDEMPOTENCY_TABLE": "pt", "IDEMPOTENCY_TABLE": "plain"}, "pt", "POWERTOOLS_IDEMPOTENCY_TABLE"},
		{map[string]string{"IDEMPOTENCY_TABLE": "plain", "LOG_LEVEL": "INFO"}, "plain", "IDEMPOTENCY_TABLE"},
		{map[string]string{"TABLA_IDEMPOTENCIA": "mercadofresco-idempotencia"}, "mercadofresco-idempotencia", "TABLA_IDEMPOTENCIA"},
		{map[string]string{"ORDERS_TABLE": "orders", "B_IDEMPOTENT_STORE": "b", "A_IDEMPOTENT_STORE": "a"}, "a", "A_IDEMPOTENT_STORE"},
		{map[string]string{"IDEMPOTENCY_TABLE": "  "}, "", ""},
		{nil, "", ""},
	} {
		if table, name := TableFromEnv(c.vars); table != c.table || name != c.name {
			t.Errorf("TableFromEnv(%v) = %q, %q; want %q, %q", c.vars, table, name, c.table, c.name)
		}
	}
}

func TestWindowText(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Hour - 2*time.Second: "1h", 90 * time.Minute: "1h30m", 45 * time.Minute: "45m", 24 * time.Hour: "24h", 30 * time.Second: "30s"} {
		if got := WindowText(d); got != want {
			t.Errorf("WindowText(%v) = %q, want %q", d, got, want)
		}
	}
}
