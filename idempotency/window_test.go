package idempotency

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// countingDB counts Scan calls.
type countingDB struct {
	DynamoDB
	scans int
}

func (c *countingDB) Scan(ctx context.Context, in *dynamodb.ScanInput, f ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	c.scans++
	return c.DynamoDB.Scan(ctx, in, f...)
}

// putRecords writes n Powertools records expiring at each of expiries
// (BatchWriteItem, 25 a call), ids from first.
func putRecords(t *testing.T, db *dynamodb.Client, table string, first int, expiries []time.Time, status bool) {
	t.Helper()
	for i := 0; i < len(expiries); i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < min(i+25, len(expiries)); j++ {
			item := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "orders#" + strconv.Itoa(first+j)},
				PowertoolsExpiry: &types.AttributeValueMemberN{Value: strconv.FormatInt(expiries[j].Unix(), 10)}}
			if status {
				item["status"] = &types.AttributeValueMemberS{Value: "COMPLETED"}
			}
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
		}
		if _, err := db.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}}); err != nil {
			t.Fatal(err)
		}
	}
}

// Powertools' one-hour default with TTL deleting within about two days: a
// table of 1,200 expired-but-present records and three live ones, written
// last. One 25-item sample found none ahead of now and turned the
// --beyond-window refusal off; the filtered, paged read finds the live
// ones and the window.
func TestReadFindsTheLiveAmongExpired(t *testing.T) {
	client := dynamodb.NewFromConfig(localaws.Config(t))
	now := time.Now().UTC().Truncate(time.Second)
	name := makeTable(t, client, PowertoolsExpiry, PowertoolsExpiry)
	expired := make([]time.Time, 1200)
	for i := range expired {
		expired[i] = now.Add(-time.Duration(i+1) * time.Minute) // up to 20 hours ago
	}
	putRecords(t, client, name, 0, expired, true)
	putRecords(t, client, name, len(expired), []time.Time{now.Add(59 * time.Minute), now.Add(30 * time.Minute), now.Add(5 * time.Minute)}, true)
	db := &countingDB{DynamoDB: client}
	s, err := Read(context.Background(), db, name, now)
	if err != nil {
		t.Fatal(err)
	}
	if s.Ahead != 3 || s.Window != 59*time.Minute || s.Looked != 1203 || s.Truncated || s.Powertools != 3 {
		t.Fatalf("Read = %+v, want 3 ahead of 1203 looked at, window 59m", s)
	}
	if db.scans < 2 {
		t.Errorf("%d Scan calls for 1203 items: the read must page (Limit %d)", db.scans, pageItems)
	}
	if ok, why := Trusted(UntrustedVar, s); !ok {
		t.Errorf("Powertools records under TABLE_NAME: %s", why)
	}
}

// TABLE_NAME is trusted only when the table's records look like
// Powertools' (a status beside the expiry): a business table with an
// expiration attribute is not an idempotency store.
func TestTableNameTrustedOnlyForPowertoolsRecords(t *testing.T) {
	if table, v := TableFromEnv(map[string]string{"TABLE_NAME": "orders-idem", "LOG_LEVEL": "INFO"}); table != "orders-idem" || v != UntrustedVar {
		t.Fatalf("TableFromEnv = %q, %q", table, v)
	}
	if table, v := TableFromEnv(map[string]string{"TABLE_NAME": "orders", "IDEMPOTENCY_TABLE": "idem"}); table != "idem" || v != "IDEMPOTENCY_TABLE" {
		t.Fatalf("a named store comes before TABLE_NAME: %q, %q", table, v)
	}
	client := dynamodb.NewFromConfig(localaws.Config(t))
	now := time.Now().UTC().Truncate(time.Second)
	business := makeTable(t, client, "", "expiration")
	putRecords(t, client, business, 0, []time.Time{now.Add(48 * time.Hour)}, false)
	s, err := Read(context.Background(), client, business, now)
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := Trusted(UntrustedVar, s); ok || why == "" {
		t.Errorf("a business table under TABLE_NAME was trusted: %+v", s)
	}
	if ok, _ := Trusted("IDEMPOTENCY_TABLE", s); !ok {
		t.Error("a table named by IDEMPOTENCY_TABLE is trusted as it is")
	}
}
