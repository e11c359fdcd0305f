package envelope

import (
	"errors"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/sqsjson"
)

const repaired = `{"customer":"ana","order_id":"ord-000001","version":1}`

// TestRewrapChangesOnlyThePayload: the new body is the old one with the
// payload's bytes replaced (and, for SNS, the signature members removed),
// every other byte where it was.
func TestRewrapChangesOnlyThePayload(t *testing.T) {
	snsWant := strings.NewReplacer(
		`"Message" : "{\"order_id\":\"ord-000001\",\"version\":2,\"customer\":\"ana\"}"`, `"Message" : "{\"customer\":\"ana\",\"order_id\":\"ord-000001\",\"version\":1}"`,
		"  \"SignatureVersion\" : \"1\",\n", "",
		"  \"Signature\" : \"EXAMPLEpH+DcEwjAPg8O9mY8dReBSwksfg2S7WKQcikcNKWLQjwu6A4VbeS0QHVCkhRS7fUQvi2egU3N858fiTDN6bkkOxYDVrY0Ad8L10Hs3zH81mtnPk5uvvolIC1CXGu43obcgFxeL3khZl8IKvO61GWB6jI9b5+gLPoBc1Q=\",\n", "",
		"  \"SigningCertURL\" : \"https://sns.us-west-2.amazonaws.com/SimpleNotificationService-f3ecfb7224c7233fe7bb5f59f96de52f.pem\",\n", "",
	).Replace(snsBody)
	tests := []struct {
		name, body, want string
		attrs            map[string]sqsjson.MessageAttributeValue
		dropped          int
	}{
		{"raw", "  " + order + "\n", "  " + repaired + "\n", nil, 0},
		{"sns", snsBody, snsWant, nil, 3},
		{"eventbridge", eventBody, strings.Replace(eventBody, `"detail":{"order_id":"ord-000001","version":2,"customer":"ana"}`, `"detail":`+repaired, 1), nil, 0},
		{"destination record", destinationBody, strings.Replace(destinationBody, `"requestPayload":{"order_id":"ord-000001","version":2,"customer":"ana"}`, `"requestPayload":`+repaired, 1), nil, 0},
		{"lambda async", order, repaired, map[string]sqsjson.MessageAttributeValue{"RequestID": sattr("r-1"), "ErrorCode": nattr("200"), "ErrorMessage": sattr("boom")}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &sqsjson.Message{MessageId: "m", Body: tt.body, MessageAttributes: tt.attrs}
			got, dropped, err := rewrap(m, []byte(repaired))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("body\n%s\nwant\n%s", got, tt.want)
			}
			if len(dropped) != tt.dropped {
				t.Errorf("dropped %q, want %d members", dropped, tt.dropped)
			}
			if m.Body != tt.body {
				t.Error("Rewrap changed the message it was given")
			}
		})
	}
}

// TestRewrapRefuses: envelopes whose payload cannot be replaced alone.
func TestRewrapRefuses(t *testing.T) {
	ce := `{"specversion":"1.0","id":"1","source":"orders","type":"OrderPlaced","data":{"version":2}}`
	ptr := `["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"b","s3Key":"k"}]`
	tests := []struct {
		name, body, payload string
		noRewrap            bool
	}{
		{"cloudevent", ce, `{"version":1}`, true},
		{"offloaded", ptr, `{"version":1}`, true},
		{"lambda sns event", lambdaSNSEvent, `{"version":1}`, true},
		{"eventbridge detail not an object", eventBody, `[1]`, false},
		{"destination payload not json", destinationBody, `not json`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := rewrap(&sqsjson.Message{MessageId: "m", Body: tt.body}, []byte(tt.payload))
			if err == nil || errors.Is(err, ErrNoRewrap) != tt.noRewrap {
				t.Fatalf("err %v; want a refusal (ErrNoRewrap %v)", err, tt.noRewrap)
			}
		})
	}
}

// An SNS Message with characters JSON escapes goes back escaped as SNS
// writes it, and reads back as the same payload.
func TestRewrapSNSEscapes(t *testing.T) {
	payload := `{"note":"café <b> & \"quoted\"\n","version":1}`
	body, _, err := rewrap(&sqsjson.Message{MessageId: "m", Body: snsBody}, []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	if got := Detect(&sqsjson.Message{Body: body}); got.Kind != KindSNS || string(got.Payload) != payload {
		t.Fatalf("read back %s %q", got.Kind, got.Payload)
	}
	if !strings.Contains(body, `<b> & `) {
		t.Errorf("HTML characters escaped: %s", body)
	}
}

// rewrap is Rewrap of m with its envelope detected here.
func rewrap(m *sqsjson.Message, payload []byte) (string, []string, error) {
	e := Detect(m)
	return Rewrap(m, &e, payload)
}

// BenchmarkRewrap is the re-wrap of a repaired payload with its read-back
// check, per message: a bare body (the scale bench's orders) and an SNS
// notification.
func BenchmarkRewrap(b *testing.B) {
	for _, c := range []struct{ name, body string }{{"raw", order}, {"sns", snsBody}} {
		b.Run(c.name, func(b *testing.B) {
			m := &sqsjson.Message{MessageId: "m", Body: c.body}
			e := Detect(m)
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Rewrap(m, &e, []byte(repaired)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
