package envelope

import (
	"strconv"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// The same payload in a raw body, an SNS notification and an EventBridge
// event (re-serialised, as EventBridge does) hashes the same; another
// payload does not.
func TestPayloadSHA256SeesThroughEnvelopes(t *testing.T) {
	raw := PayloadSHA256(&sqsjson.Message{Body: `{"order_id": "o-1", "n": 2}`})
	event := `{"version":"0","id":"6a7e8feb-b491-4cf7-a9f1-bf3703467718","detail-type":"OrderPlaced","source":"shop.orders",` +
		`"account":"123456789012","time":"2026-03-01T03:00:00Z","region":"us-east-1","resources":[],"detail":{"order_id":"o-1","n":2}}`
	notification := `{"Type":"Notification","MessageId":"95df01b4-ee98-5cb9-9903-4c221d41eb5e","TopicArn":"arn:aws:sns:us-east-1:123456789012:orders",` +
		`"Message":"{\"order_id\": \"o-1\", \"n\": 2}","Timestamp":"2026-03-01T03:00:00.000Z","SignatureVersion":"1","Signature":"x",` +
		`"SigningCertURL":"https://sns.us-east-1.amazonaws.com/a.pem","UnsubscribeURL":"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe"}`
	for name, body := range map[string]string{"eventbridge": event, "sns": notification} {
		m := &sqsjson.Message{Body: body}
		if k := Detect(m).Kind; k == KindRaw {
			t.Fatalf("%s: not detected as an envelope", name)
		}
		if got := PayloadSHA256(m); got != raw {
			t.Errorf("%s: payload hash %s, want the raw body's %s", name, got, raw)
		}
	}
	if PayloadSHA256(&sqsjson.Message{Body: `{"order_id":"o-2","n":2}`}) == raw {
		t.Error("another payload hashes the same")
	}
}

func TestArrivedAfter(t *testing.T) {
	sentAt := time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *sqsjson.Message {
		ms := sentAt.Add(d).UnixMilli()
		return &sqsjson.Message{Attributes: map[string]string{sqsjson.AttrSentTimestamp: strconv.FormatInt(ms, 10)}}
	}
	for _, tc := range []struct {
		name string
		m    *sqsjson.Message
		want bool
	}{
		{"after", at(time.Minute), true},
		{"within the clock skew", at(-ReturnSkew + time.Millisecond), true},
		{"before: a duplicate", at(-time.Hour), false},
		{"no SentTimestamp", &sqsjson.Message{}, true},
	} {
		if got := ArrivedAfter(tc.m, sentAt); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
