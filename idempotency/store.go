package idempotency

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// PowertoolsExpiry is the attribute Powertools for AWS Lambda writes a
// record's expiry to (epoch seconds); Powertools checks it itself, TTL only
// cleans up.
const PowertoolsExpiry = "expiration"

// sampleItems is how many items the window is estimated from: one Scan
// page this small costs a fraction of a read unit per item and returns in
// one round trip, whatever the table's size.
const sampleItems = 25

// Store is an idempotency table as Read saw it.
type Store struct {
	Table string `json:"table"`
	// TTLStatus is DescribeTimeToLive's status (ENABLED, DISABLED,
	// ENABLING, DISABLING); TTLAttribute the attribute it deletes by.
	TTLStatus    string `json:"ttl_status"`
	TTLAttribute string `json:"ttl_attribute,omitempty"`
	// Expiry is the attribute the window was read from: the TTL
	// attribute, else Powertools' "expiration".
	Expiry string `json:"expiry"`
	// Window is the largest expiry ahead of now among the Looked items
	// (Ahead of them were ahead); 0 when none was.
	Window time.Duration `json:"window_ns"`
	Looked int           `json:"looked"`
	Ahead  int           `json:"ahead"`
}

// TTLOn tells whether the table's TTL deletes expired records.
func (s Store) TTLOn() bool {
	return s.TTLStatus == string(types.TimeToLiveStatusEnabled) || s.TTLStatus == string(types.TimeToLiveStatusEnabling)
}

// TTLText says the TTL setting in a few words: "TTL on expira_en", "TTL off".
func (s Store) TTLText() string {
	if s.TTLOn() {
		return "TTL on " + s.TTLAttribute
	}
	return "TTL " + strings.ToLower(s.TTLStatus)
}

// Read reads table's TTL setting and estimates its window from a handful
// of items: the largest expiry ahead of now. A record written at t expires
// at t+window, so the estimate is at most the window, and lower the longer
// ago the consumer last completed a record (an idle consumer's estimate is
// a lower bound). A table whose TTL cannot be read is still sampled by
// Powertools' attribute; an error says what could not be read.
func Read(ctx context.Context, db DynamoDB, table string, now time.Time) (Store, error) {
	s := Store{Table: table, Expiry: PowertoolsExpiry}
	ttl, ttlErr := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	if ttlErr == nil && ttl.TimeToLiveDescription != nil {
		d := ttl.TimeToLiveDescription
		s.TTLStatus, s.TTLAttribute = string(d.TimeToLiveStatus), aws.ToString(d.AttributeName)
		if s.TTLAttribute != "" {
			s.Expiry = s.TTLAttribute
		}
	}
	if ttlErr != nil {
		ttlErr = fmt.Errorf("describe time to live of %s: %w", table, ttlErr)
	}
	scanErr := s.sample(ctx, db, now)
	return s, errors.Join(ttlErr, scanErr)
}

// sample reads one small page of the expiry attribute and keeps the
// largest expiry ahead of now.
func (s *Store) sample(ctx context.Context, db DynamoDB, now time.Time) error {
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(s.Table), Limit: aws.Int32(sampleItems),
		ProjectionExpression: aws.String("#e"), ExpressionAttributeNames: map[string]string{"#e": s.Expiry}})
	if err != nil {
		return fmt.Errorf("scan %s for its records' %s: %w", s.Table, s.Expiry, err)
	}
	for _, item := range out.Items {
		s.Looked++
		at, ok := epoch(item[s.Expiry])
		if !ok || !at.After(now) {
			continue
		}
		s.Ahead++
		s.Window = max(s.Window, at.Sub(now))
	}
	return nil
}

// epoch reads an expiry: a number of epoch seconds (TTL's format), or of
// milliseconds when it is too large to be seconds.
func epoch(v types.AttributeValue) (time.Time, bool) {
	var text string
	switch n := v.(type) {
	case *types.AttributeValueMemberN:
		text = n.Value
	case *types.AttributeValueMemberS:
		text = n.Value
	default:
		return time.Time{}, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || f <= 0 {
		return time.Time{}, false
	}
	if f > 1e11 { // later than the year 5138 in seconds: milliseconds
		f /= 1000
	}
	return time.Unix(0, int64(f*float64(time.Second))).UTC(), true
}

// WindowText writes a window the way the plan says it: to the minute,
// without trailing zeros ("1h", "1h30m", "45m"); under a minute, seconds.
func WindowText(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Second).String()
	}
	t := d.Round(time.Minute).String()
	t = strings.TrimSuffix(t, "0s")
	if strings.HasSuffix(t, "h0m") {
		t = strings.TrimSuffix(t, "0m")
	}
	return t
}
