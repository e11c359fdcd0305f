package target

import (
	"encoding/json"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// notNotificationError is a message a Lambda subscriber cannot be invoked
// with: it holds no SNS notification. It fails alone and stays in the DLQ.
type notNotificationError struct{ kind envelope.Kind }

func (e *notNotificationError) Error() string {
	return "holds no SNS notification (" + string(e.kind) + "): a Lambda subscriber's DLQ message is the notification SNS failed to deliver"
}

// snsEventRenames are the notification's keys that SNS's Lambda event
// spells otherwise.
var snsEventRenames = map[string]string{"SigningCertURL": "SigningCertUrl", "UnsubscribeURL": "UnsubscribeUrl"}

// SNSEvent is the event SNS invokes a Lambda subscriber with, around the
// notification m holds (the DLQ of a Lambda subscription holds the
// notification itself): one record naming the subscription, the
// notification under "Sns" with the event's spelling, a null Subject and
// empty MessageAttributes when it has none.
func SNSEvent(m *sqsjson.Message, subscription string) ([]byte, error) {
	if k := envelope.Detect(m).Kind; k != envelope.KindSNS {
		return nil, &notNotificationError{kind: k}
	}
	var n map[string]json.RawMessage
	if err := json.Unmarshal([]byte(m.Body), &n); err != nil {
		return nil, &notNotificationError{kind: envelope.KindRaw}
	}
	for from, to := range snsEventRenames {
		if v, ok := n[from]; ok {
			delete(n, from)
			n[to] = v
		}
	}
	if _, ok := n["Subject"]; !ok {
		n["Subject"] = json.RawMessage("null")
	}
	if _, ok := n["MessageAttributes"]; !ok {
		n["MessageAttributes"] = json.RawMessage("{}")
	}
	type record struct {
		EventSource          string                     `json:"EventSource"`
		EventVersion         string                     `json:"EventVersion"`
		EventSubscriptionArn string                     `json:"EventSubscriptionArn"`
		Sns                  map[string]json.RawMessage `json:"Sns"`
	}
	return json.Marshal(struct {
		Records []record `json:"Records"`
	}{[]record{{EventSource: "aws:sns", EventVersion: "1.0", EventSubscriptionArn: subscription, Sns: n}}})
}
