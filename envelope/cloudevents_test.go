package envelope

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/sqsjson"
)

const (
	ceBody = `{"specversion":"1.0","id":"b3c1f1e2-0001","source":"/orders/eu-1","type":"com.example.order.placed",` +
		`"datacontenttype":"application/json","dataschema":"https://schemas.example.com/order/1","time":"2024-03-10T22:04:00Z",` +
		`"data":{"order_id":"ord-000001","version":2,"customer":"ana"}}`
	pointerBody = `["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"orders-large","s3Key":"9f1c7a1e-5b0a-4c4e-8d1f-2b7f9a0c1d2e"}]`
	pointerObj  = `{"s3BucketName":"orders-large","s3Key":"9f1c7a1e-5b0a-4c4e-8d1f-2b7f9a0c1d2e"}`
)

// ceView is what the CloudEvents and pointer tests compare.
type ceView struct {
	Kind, Wraps           Kind
	Payload               string
	PayloadJSON           bool
	EventType, DataSchema string
	Pointer               *Pointer
}

func seeCE(e Envelope) ceView {
	return ceView{e.Kind, e.Wraps, string(e.Payload), e.PayloadJSON, e.EventType, e.DataSchema, e.Pointer}
}

func TestDetectCloudEventsAndPointers(t *testing.T) {
	ceString := strings.Replace(ceBody, `"data":{"order_id":"ord-000001","version":2,"customer":"ana"}`, `"data":"{\"order_id\":\"ord-000001\",\"version\":2,\"customer\":\"ana\"}"`, 1)
	ceB64 := strings.Replace(ceBody, `"data":{"order_id":"ord-000001","version":2,"customer":"ana"}`, `"data_base64":"eyJvcmRlcl9pZCI6Im9yZC0wMDAwMDEiLCJ2ZXJzaW9uIjoyLCJjdXN0b21lciI6ImFuYSJ9"`, 1)
	snsOfCE := strings.Replace(snsBody, `"{\"order_id\":\"ord-000001\",\"version\":2,\"customer\":\"ana\"}"`, quote(ceBody), 1)
	snsOfPointer := strings.Replace(snsBody, `"{\"order_id\":\"ord-000001\",\"version\":2,\"customer\":\"ana\"}"`, quote(pointerBody), 1)
	binary := map[string]sqsjson.MessageAttributeValue{
		"ce_specversion": sattr("1.0"), "ce_id": sattr("e-1"), "ce_source": sattr("/orders"),
		"ce_type": sattr("com.example.order.placed"), "ce_dataschema": sattr("https://schemas.example.com/order/2"),
	}
	binaryDash := map[string]sqsjson.MessageAttributeValue{
		"ce-specversion": sattr("1.0"), "ce-id": sattr("e-1"), "ce-source": sattr("/orders"), "ce-type": sattr("com.example.order.placed"),
	}
	sized := map[string]sqsjson.MessageAttributeValue{"ExtendedPayloadSize": nattr("300123")}
	tests := []struct {
		name  string
		body  string
		attrs map[string]sqsjson.MessageAttributeValue
		want  ceView
	}{
		{"structured", ceBody, nil, ceView{KindCloudEvents, "", order, true, "com.example.order.placed", "https://schemas.example.com/order/1", nil}},
		{"structured, data a JSON string", ceString, nil, ceView{KindCloudEvents, "", order, true, "com.example.order.placed", "https://schemas.example.com/order/1", nil}},
		{"structured, data_base64", ceB64, nil, ceView{KindCloudEvents, "", order, true, "com.example.order.placed", "https://schemas.example.com/order/1", nil}},
		{"binary, ce_ attributes", order, binary, ceView{KindCloudEvents, "", order, true, "com.example.order.placed", "https://schemas.example.com/order/2", nil}},
		{"binary, ce- attributes", order, binaryDash, ceView{KindCloudEvents, "", order, true, "com.example.order.placed", "", nil}},
		{"sns of a cloudevent", snsOfCE, nil, ceView{KindSNS, KindCloudEvents, order, true, "com.example.order.placed", "https://schemas.example.com/order/1", nil}},
		{"pointer", pointerBody, sized, ceView{KindOffloaded, "", pointerObj, true, "", "",
			&Pointer{Bucket: "orders-large", Key: "9f1c7a1e-5b0a-4c4e-8d1f-2b7f9a0c1d2e", Size: 300123}}},
		{"legacy pointer class, no size", strings.Replace(pointerBody, "software.amazon.payloadoffloading.PayloadS3Pointer", "com.amazon.sqs.javamessaging.MessageS3Pointer", 1), nil,
			ceView{KindOffloaded, "", pointerObj, true, "", "", &Pointer{Bucket: "orders-large", Key: "9f1c7a1e-5b0a-4c4e-8d1f-2b7f9a0c1d2e", Size: -1}}},
		{"sns of a pointer", snsOfPointer, nil, ceView{KindSNS, KindOffloaded, pointerObj, true, "", "",
			&Pointer{Bucket: "orders-large", Key: "9f1c7a1e-5b0a-4c4e-8d1f-2b7f9a0c1d2e", Size: -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := seeCE(Detect(&sqsjson.Message{MessageId: "m", Body: tt.body, MessageAttributes: tt.attrs}))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestCloudEventsAndPointersAreStrict: a specversion alone, a pointer
// without its bucket, or half the binary attributes stay raw.
func TestCloudEventsAndPointersAreStrict(t *testing.T) {
	tests := map[string]struct {
		body  string
		attrs map[string]sqsjson.MessageAttributeValue
	}{
		"specversion alone":         {`{"specversion":"1.0","data":{"a":1}}`, nil},
		"specversion not a version": {strings.Replace(ceBody, `"1.0"`, `"latest"`, 1), nil},
		"no source":                 {strings.Replace(ceBody, `"source":"/orders/eu-1",`, "", 1), nil},
		"pointer without a key":     {`["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"b"}]`, nil},
		"another class":             {`["com.example.Thing",{"s3BucketName":"b","s3Key":"k"}]`, nil},
		"three elements":            {`["x.PayloadS3Pointer",{"s3BucketName":"b","s3Key":"k"},1]`, nil},
		"binary without ce_type": {order, map[string]sqsjson.MessageAttributeValue{
			"ce_specversion": sattr("1.0"), "ce_id": sattr("e-1"), "ce_source": sattr("/orders"), "other": sattr("x")}},
	}
	for name, tt := range tests {
		e := Detect(&sqsjson.Message{MessageId: "m", Body: tt.body, MessageAttributes: tt.attrs})
		if e.Kind != KindRaw || e.Wraps != "" || e.Pointer != nil || string(e.Payload) != strings.TrimSpace(tt.body) {
			t.Errorf("%s: got %+v, want raw with the body as payload", name, seeCE(e))
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
