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

// The window's read is bounded: Scan pages of pageItems items evaluated
// (a Scan's Limit counts items read, before its filter), at most
// maxScanPages of them, stopping once maxAhead records ahead of now were
// found. With Powertools' one-hour default and TTL deleting within about
// two days, a busy table holds ~50 expired records for each live one:
// 5,000 items read find about 100 live ones, for at most ~1,250 read
// units on items of 1 KB (Scan is charged on the items read, not on what
// the projection returns).
const (
	pageItems    = 1000
	maxScanPages = 5
	maxAhead     = 100
)

// Powertools' record attributes besides the expiry: a record's status
// (COMPLETED, INPROGRESS, EXPIRED).
const powertoolsStatus = "status"

// UntrustedVar is the variable that names a table only perhaps an
// idempotency store: Java's Powertools docs name the table TABLE_NAME, and
// so do countless business tables. It is trusted only when the records
// read look like Powertools' (Trusted).
const UntrustedVar = "TABLE_NAME"

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
	// (Ahead of them were ahead); 0 when none was. Looked counts the items
	// the Scan read (expired ones included), Ahead the records whose
	// expiry is ahead of now.
	Window time.Duration `json:"window_ns"`
	Looked int           `json:"looked"`
	Ahead  int           `json:"ahead"`
	// Powertools counts the records ahead that look like Powertools'
	// (a status beside the expiry); Truncated is a read that stopped at
	// its bound with more of the table unread.
	Powertools int  `json:"powertools,omitempty"`
	Truncated  bool `json:"truncated,omitempty"`
}

// Trusted tells whether s, named by variable, may be taken for the
// consumer's idempotency store, and if not why: a table named by
// UntrustedVar must hold records that look like Powertools' — every
// record ahead of now with a status — and at least one.
func Trusted(variable string, s Store) (bool, string) {
	if variable != UntrustedVar {
		return true, ""
	}
	if s.Ahead == 0 || s.Powertools < s.Ahead {
		return false, fmt.Sprintf("%s names %s, whose records do not look like Powertools' idempotency records (%s and %s): not taken for the consumer's idempotency store (give it with --idempotency-table if it is one)",
			UntrustedVar, s.Table, s.Expiry, powertoolsStatus)
	}
	return true, ""
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

// sample reads the records whose expiry is ahead of now — the Scan's
// filter keeps the expired ones, which TTL deletes only within about two
// days, off the answer — page after page within the bounds above, and
// keeps the largest expiry ahead of now. The filter compares numbers: TTL
// deletes by a Number attribute only (a string one is never deleted), and
// Powertools writes one; epoch then reads each value, seconds or
// milliseconds (which compare larger still).
func (s *Store) sample(ctx context.Context, db DynamoDB, now time.Time) error {
	secs := strconv.FormatInt(now.Unix(), 10)
	in := &dynamodb.ScanInput{TableName: aws.String(s.Table), Limit: aws.Int32(pageItems),
		ProjectionExpression:      aws.String("#e, #st"),
		FilterExpression:          aws.String("#e > :n"),
		ExpressionAttributeNames:  map[string]string{"#e": s.Expiry, "#st": powertoolsStatus},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: secs}}}
	for page := 0; ; page++ {
		if page == maxScanPages || s.Ahead >= maxAhead {
			s.Truncated = true
			return nil
		}
		out, err := db.Scan(ctx, in)
		if err != nil {
			return fmt.Errorf("scan %s for its records' %s: %w", s.Table, s.Expiry, err)
		}
		s.Looked += int(out.ScannedCount)
		for _, item := range out.Items {
			at, ok := epoch(item[s.Expiry])
			if !ok || !at.After(now) {
				continue
			}
			s.Ahead++
			s.Window = max(s.Window, at.Sub(now))
			if _, ok := item[powertoolsStatus].(*types.AttributeValueMemberS); ok {
				s.Powertools++
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
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
