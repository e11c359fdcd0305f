package selection

import (
	"testing"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// TestFilterSeesThePayload: --filter reads the payload inside an envelope
// as .Payload, beside .Body, and FilterInput leaves the message as it was.
func TestFilterSeesThePayload(t *testing.T) {
	sns := `{"Type":"Notification","MessageId":"6f5c3b7e-0c7e-4d4e-9a55-1f0c4b6a9d01","TopicArn":"arn:aws:sns:us-east-1:123456789012:orders",` +
		`"Message":"{\"order_id\":\"o-1\",\"version\":2}","Timestamp":"2024-03-10T22:04:00.000Z","SignatureVersion":"1","Signature":"EXAMPLE",` +
		`"SigningCertURL":"https://sns.us-east-1.amazonaws.com/x.pem","UnsubscribeURL":"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe"}`
	msgs := []sqsjson.Message{
		{MessageId: "a", Body: sns, Attributes: map[string]string{"SentTimestamp": "1710108240000"}},
		{MessageId: "b", Body: `{"order_id":"o-2","version":2}`},
		{MessageId: "c", Body: `{"order_id":"o-3","version":1}`},
		{MessageId: "d", Body: "plain text"},
	}
	tests := []struct {
		filter string
		want   []bool
	}{
		{".Payload.version? == 2", []bool{true, true, false, false}},
		{`.Envelope.kind == "sns"`, []bool{true, false, false, false}},
		{".Body.Type? == \"Notification\"", []bool{true, false, false, false}},
		{`.Payload == "plain text"`, []bool{false, false, false, true}},
	}
	for _, tt := range tests {
		sel, err := Selection{Filter: tt.filter}.Compile(nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range msgs {
			before := msgs[i].Body
			got, err := sel.Match(&msgs[i])
			if err != nil || got != tt.want[i] {
				t.Errorf("%s on %s: %v, %v; want %v", tt.filter, msgs[i].MessageId, got, err, tt.want[i])
			}
			if msgs[i].Body != before {
				t.Fatalf("the filter changed the body of %s", msgs[i].MessageId)
			}
		}
	}
}
