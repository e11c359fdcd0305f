package window

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// The move's count: a kept message is seen again by the rest after the
// canary (the largest phase), a moved one once (the sum).
func TestBeyondCount(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	w := &Window{Length: time.Hour}
	old := sqsjson.Message{MessageId: "a", Attributes: map[string]string{sqsjson.AttrSentTimestamp: strconv.FormatInt(now.Add(-2*time.Hour).UnixMilli(), 10)}}
	fresh := sqsjson.Message{MessageId: "b", Attributes: map[string]string{sqsjson.AttrSentTimestamp: strconv.FormatInt(now.Add(-time.Minute).UnixMilli(), 10)}}
	for _, keep := range []bool{true, false} {
		c := &BeyondCount{}
		sel := c.Selector(w, keep, func() time.Time { return now }, nil)
		if ok, _ := sel(&old); ok == keep {
			t.Fatalf("keep=%v: old message selected %v", keep, ok)
		}
		if ok, _ := sel(&fresh); !ok {
			t.Fatal("fresh message not selected")
		}
		c.End()
		_, _ = sel(&old)
		want := map[bool]int{true: 1, false: 2}[keep]
		if got := c.Total(keep); got != want {
			t.Errorf("keep=%v: total %d, want %d", keep, got, want)
		}
	}
}

// tableOf answers a Scan with one record expiring in a day, with or
// without Powertools' status, and DescribeTimeToLive with TTL off.
type tableOf struct{ status bool }

func (f tableOf) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return &dynamodb.DescribeTimeToLiveOutput{TimeToLiveDescription: &ddbtypes.TimeToLiveDescription{TimeToLiveStatus: ddbtypes.TimeToLiveStatusDisabled}}, nil
}

func (f tableOf) Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	item := map[string]ddbtypes.AttributeValue{"expiration": &ddbtypes.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Add(24*time.Hour).Unix(), 10)}}
	if f.status {
		item["status"] = &ddbtypes.AttributeValueMemberS{Value: "COMPLETED"}
	}
	return &dynamodb.ScanOutput{Items: []map[string]ddbtypes.AttributeValue{item}, ScannedCount: 1}, nil
}

// A table named by TABLE_NAME is the consumer's store only when its
// records look like Powertools': a business table's window is not taken
// for one (the plan says why), a Powertools table's is.
func TestReadTableNameStore(t *testing.T) {
	for _, powertools := range []bool{false, true} {
		w := &Window{Consumer: "orders", Var: idempotency.UntrustedVar, Store: idempotency.Store{Table: "orders"}}
		open := func(context.Context) (idempotency.DynamoDB, error) { return tableOf{status: powertools}, nil }
		if err := w.Read(context.Background(), open, 0, time.Now()); err != nil {
			t.Fatal(err)
		}
		switch {
		case powertools && (w.Length < 23*time.Hour || w.Unread != ""):
			t.Errorf("Powertools records: length %s, unread %q", w.Length, w.Unread)
		case !powertools && (w.Length != 0 || !strings.Contains(w.Unread, "do not look like Powertools'")):
			t.Errorf("business table: length %s, unread %q", w.Length, w.Unread)
		}
	}
}

// expiredTable is a table bigger than the window's bounded read, every
// record of it read so far expired: each Scan page evaluates 1,000 items,
// the filter keeps none, and more follow.
type expiredTable struct{ tableOf }

func (expiredTable) Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return &dynamodb.ScanOutput{ScannedCount: 1000, LastEvaluatedKey: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "k"}}}, nil
}

// A store whose bounded read found only expired records but stopped with
// more of the table unread does not say it holds none ahead of now: the
// live ones may be past the bound, and the plan says so.
func TestReadStoppedAtItsBound(t *testing.T) {
	w := &Window{Consumer: "orders", Var: "POWERTOOLS_IDEMPOTENCY_TABLE", Store: idempotency.Store{Table: "orders-idem"}}
	open := func(context.Context) (idempotency.DynamoDB, error) { return expiredTable{}, nil }
	if err := w.Read(context.Background(), open, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	if w.Length != 0 || !strings.Contains(w.Unread, "none of the 5000 records looked at") || !strings.Contains(w.Unread, "more of the table unread") {
		t.Errorf("length %s, unread %q", w.Length, w.Unread)
	}
}
