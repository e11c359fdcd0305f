package envelope

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// Bodies in the shapes AWS documents (docs/classify.md cites the pages).
const (
	order = `{"order_id":"ord-000001","version":2,"customer":"ana"}`

	snsBody = `{
  "Type" : "Notification",
  "MessageId" : "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
  "TopicArn" : "arn:aws:sns:us-west-2:123456789012:orders",
  "Subject" : "order placed",
  "Message" : "{\"order_id\":\"ord-000001\",\"version\":2,\"customer\":\"ana\"}",
  "Timestamp" : "2024-03-10T22:04:00.000Z",
  "SignatureVersion" : "1",
  "Signature" : "EXAMPLEpH+DcEwjAPg8O9mY8dReBSwksfg2S7WKQcikcNKWLQjwu6A4VbeS0QHVCkhRS7fUQvi2egU3N858fiTDN6bkkOxYDVrY0Ad8L10Hs3zH81mtnPk5uvvolIC1CXGu43obcgFxeL3khZl8IKvO61GWB6jI9b5+gLPoBc1Q=",
  "SigningCertURL" : "https://sns.us-west-2.amazonaws.com/SimpleNotificationService-f3ecfb7224c7233fe7bb5f59f96de52f.pem",
  "UnsubscribeURL" : "https://sns.us-west-2.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-west-2:123456789012:orders:c9135db0",
  "MessageAttributes" : {"tenant": {"Type": "String", "Value": "acme"}}
}`

	eventBody = `{"version":"0","id":"6a7e8feb-b491-4cf7-a9f1-bf3703467718","detail-type":"OrderPlaced","source":"com.example.orders",` +
		`"account":"111122223333","time":"2024-03-10T22:04:00Z","region":"us-west-1","resources":["arn:aws:ec2:us-west-1:123456789012:instance/i-1"],` +
		`"detail":{"order_id":"ord-000001","version":2,"customer":"ana"}}`

	destinationBody = `{"version":"1.0","timestamp":"2019-11-14T18:16:05.568Z",` +
		`"requestContext":{"requestId":"e4b46cbf-b738-xmpl-8880-a18cdf61200e","functionArn":"arn:aws:lambda:us-east-2:123456789012:function:orders:$LATEST","condition":"RetriesExhausted","approximateInvokeCount":3},` +
		`"requestPayload":{"order_id":"ord-000001","version":2,"customer":"ana"},` +
		`"responseContext":{"statusCode":200,"executedVersion":"$LATEST","functionError":"Unhandled"},` +
		`"responsePayload":{"errorType":"CustomerNotFound","errorMessage":"customer C-1042 not found","trace":["at handler (/var/task/index.js:12:9)"]}}`

	s3Body = `{"Records":[{"eventVersion":"2.1","eventSource":"aws:s3","awsRegion":"us-west-2","eventTime":"2024-03-10T22:04:00.000Z",` +
		`"eventName":"ObjectCreated:Put","userIdentity":{"principalId":"AWS:AIDAEXAMPLE"},"requestParameters":{"sourceIPAddress":"203.0.113.7"},` +
		`"responseElements":{"x-amz-request-id":"C3D13FE58DE4C810","x-amz-id-2":"FMyUVURIY8/IgAtTv8xRjskZQpcIZ9KG4V5Wp6S7S/JRWeUWerMUE5JgHvANOjpD"},` +
		`"s3":{"s3SchemaVersion":"1.0","configurationId":"imports","bucket":{"name":"orders-imports","ownerIdentity":{"principalId":"A3NL1KOZZKExample"},"arn":"arn:aws:s3:::orders-imports"},` +
		`"object":{"key":"2024/03/10/batch+1.csv","size":1024,"eTag":"d41d8cd98f00b204e9800998ecf8427e","sequencer":"0055AED6DCD90281E5"}}}]}`

	s3TestBody = `{"Service":"Amazon S3","Event":"s3:TestEvent","Time":"2024-03-10T22:04:00.000Z","Bucket":"orders-imports","RequestId":"5582815E1AEA5ADF","HostId":"8cLeGAmw098X5cv4Zkwcmo8vvZa3eH3eKxsPzbB9wrR+YstdA6Knx4Ip8EXAMPLE"}`

	lambdaSNSEvent = `{"Records":[{"EventSource":"aws:sns","EventVersion":"1.0","EventSubscriptionArn":"arn:aws:sns:us-east-1:123456789012:orders:c9135db0",` +
		`"Sns":{"Type":"Notification","MessageId":"95df01b4-ee98-5cb9-9903-4c221d41eb5e","TopicArn":"arn:aws:sns:us-east-1:123456789012:orders","Subject":null,` +
		`"Message":"{\"order_id\":\"ord-000001\",\"version\":2}","Timestamp":"2024-03-10T22:04:00.000Z","SignatureVersion":"1","Signature":"EXAMPLE",` +
		`"SigningCertUrl":"https://sns.us-east-1.amazonaws.com/x.pem","UnsubscribeUrl":"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe","MessageAttributes":{}}}]}`
)

func sattr(v string) sqsjson.MessageAttributeValue {
	return sqsjson.MessageAttributeValue{DataType: "String", StringValue: &v}
}

func nattr(v string) sqsjson.MessageAttributeValue {
	return sqsjson.MessageAttributeValue{DataType: "Number", StringValue: &v}
}

var lambdaAsyncAttrs = map[string]sqsjson.MessageAttributeValue{
	"RequestID":    sattr("7ae1b6d2-4d0f-4c1b-9f55-6b1d1b0c2a11"),
	"ErrorCode":    nattr("200"),
	"ErrorMessage": sattr("2024-03-10T22:04:06.010Z 7ae1b6d2-4d0f-4c1b-9f55-6b1d1b0c2a11 Task timed out after 6.01 seconds"),
}

var ruleAttrs = map[string]sqsjson.MessageAttributeValue{
	"RULE_ARN":                  sattr("arn:aws:events:us-east-1:123456789012:rule/orders-to-fulfilment"),
	"TARGET_ARN":                sattr("arn:aws:lambda:us-east-1:123456789012:function:fulfilment"),
	"ERROR_CODE":                sattr("SDK_CLIENT_ERROR"),
	"ERROR_MESSAGE":             sattr("Unable to invoke Lambda function: Rate exceeded"),
	"EXHAUSTED_RETRY_CONDITION": sattr("MaximumRetryAttempts"),
	"RETRY_ATTEMPTS":            sattr("185"),
}

// view is what a detection test compares.
type view struct {
	Kind, Wraps                  Kind
	Payload                      string
	PayloadJSON                  bool
	Error, RequestID             string
	Source, DetailType           string
	EventName, EventVersion, Pbm string
}

func see(e Envelope) view {
	return view{e.Kind, e.Wraps, string(e.Payload), e.PayloadJSON, e.Error, e.RequestID,
		e.Source, e.DetailType, e.EventName, e.EventVersion, e.Problem}
}

func TestDetectEachKind(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		attrs map[string]sqsjson.MessageAttributeValue
		want  view
	}{
		{"raw order", order, nil, view{Kind: KindRaw, Payload: order, PayloadJSON: true}},
		{"raw text", "  hello  ", nil, view{Kind: KindRaw, Payload: "hello"}},
		{"raw truncated", order[:20], nil, view{Kind: KindRaw, Payload: order[:20]}},
		{"sns", snsBody, nil, view{Kind: KindSNS, Payload: order, PayloadJSON: true}},
		{"sns plain text message", strings.Replace(snsBody, `"{\"order_id\":\"ord-000001\",\"version\":2,\"customer\":\"ana\"}"`, `"disk \"full\" on host-7"`, 1), nil,
			view{Kind: KindSNS, Payload: `disk "full" on host-7`}},
		{"eventbridge", eventBody, nil, view{Kind: KindEventBridge, Payload: order, PayloadJSON: true,
			Source: "com.example.orders", DetailType: "OrderPlaced"}},
		{"lambda destination", destinationBody, nil, view{Kind: KindLambdaDestination, Payload: order, PayloadJSON: true,
			Error: "CustomerNotFound: customer C-1042 not found", RequestID: "e4b46cbf-b738-xmpl-8880-a18cdf61200e"}},
		{"lambda destination, timeout without errorType",
			strings.Replace(destinationBody, `{"errorType":"CustomerNotFound","errorMessage":"customer C-1042 not found","trace":["at handler (/var/task/index.js:12:9)"]}`,
				`{"errorMessage":"2019-11-14T18:16:05.568Z e4b46cbf Task timed out after 6.01 seconds"}`, 1), nil,
			view{Kind: KindLambdaDestination, Payload: order, PayloadJSON: true,
				Error: "2019-11-14T18:16:05.568Z e4b46cbf Task timed out after 6.01 seconds", RequestID: "e4b46cbf-b738-xmpl-8880-a18cdf61200e"}},
		{"lambda destination wrapping an event", strings.Replace(destinationBody, `{"order_id":"ord-000001","version":2,"customer":"ana"}`, eventBody, 1), nil,
			view{Kind: KindLambdaDestination, Wraps: KindEventBridge, Payload: order, PayloadJSON: true, Source: "com.example.orders", DetailType: "OrderPlaced",
				Error: "CustomerNotFound: customer C-1042 not found", RequestID: "e4b46cbf-b738-xmpl-8880-a18cdf61200e"}},
		{"lambda async", order, lambdaAsyncAttrs, view{Kind: KindLambdaAsync, Payload: order, PayloadJSON: true,
			Error: "2024-03-10T22:04:06.010Z 7ae1b6d2-4d0f-4c1b-9f55-6b1d1b0c2a11 Task timed out after 6.01 seconds", RequestID: "7ae1b6d2-4d0f-4c1b-9f55-6b1d1b0c2a11"}},
		{"lambda async of an sns-triggered function", lambdaSNSEvent, lambdaAsyncAttrs, view{Kind: KindLambdaAsync, Wraps: KindSNS,
			Payload: `{"order_id":"ord-000001","version":2}`, PayloadJSON: true,
			Error: "2024-03-10T22:04:06.010Z 7ae1b6d2-4d0f-4c1b-9f55-6b1d1b0c2a11 Task timed out after 6.01 seconds", RequestID: "7ae1b6d2-4d0f-4c1b-9f55-6b1d1b0c2a11"}},
		{"eventbridge dlq", eventBody, ruleAttrs, view{Kind: KindEventBridgeDLQ, Wraps: KindEventBridge, Payload: order, PayloadJSON: true,
			Source: "com.example.orders", DetailType: "OrderPlaced", Error: "SDK_CLIENT_ERROR: Unable to invoke Lambda function: Rate exceeded"}},
		{"eventbridge dlq of a transformed input", order, ruleAttrs, view{Kind: KindEventBridgeDLQ, Payload: order, PayloadJSON: true,
			Error: "SDK_CLIENT_ERROR: Unable to invoke Lambda function: Rate exceeded"}},
		{"s3", s3Body, nil, view{Kind: KindS3, Payload: s3Body, PayloadJSON: true, EventName: "ObjectCreated:Put", EventVersion: "2.1"}},
		{"s3 test event", s3TestBody, nil, view{Kind: KindS3, Payload: s3TestBody, PayloadJSON: true, EventName: "s3:TestEvent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := see(Detect(&sqsjson.Message{MessageId: "m", Body: tt.body, MessageAttributes: tt.attrs}))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestDetectIsStrict: one key, or the right keys with the wrong shapes,
// never names a kind.
func TestDetectIsStrict(t *testing.T) {
	tests := map[string]struct {
		body  string
		attrs map[string]sqsjson.MessageAttributeValue
	}{
		"a Message field":                {`{"Message":"{\"a\":1}","Type":"Notification"}`, nil},
		"sns without a topic ARN":        {strings.Replace(snsBody, "arn:aws:sns:us-west-2:123456789012:orders", "orders", 1), nil},
		"sns with a Message object":      {`{"Type":"Notification","MessageId":"x","TopicArn":"arn:aws:sns:r:1:t","Message":{"a":1},"Timestamp":"t","SignatureVersion":"1"}`, nil},
		"sns of another Type":            {strings.Replace(snsBody, `"Notification"`, `"SubscriptionConfirmation"`, 1), nil},
		"sns without signature fields":   {`{"Type":"Notification","MessageId":"x","TopicArn":"arn:aws:sns:r:1:t","Message":"m","Timestamp":"t"}`, nil},
		"a detail field":                 {`{"detail":{"version":2},"source":"orders"}`, nil},
		"an event whose detail is text":  {strings.Replace(eventBody, `"detail":{"order_id":"ord-000001","version":2,"customer":"ana"}`, `"detail":"x"`, 1), nil},
		"an event without resources":     {strings.Replace(eventBody, `"resources":["arn:aws:ec2:us-west-1:123456789012:instance/i-1"],`, "", 1), nil},
		"a record whose function is sns": {strings.Replace(destinationBody, "arn:aws:lambda:", "arn:aws:sns:", 1), nil},
		"a requestPayload alone":         {`{"version":"1.0","requestPayload":{"a":1}}`, nil},
		"Records of another source":      {strings.Replace(s3Body, `"aws:s3"`, `"aws:sqs"`, 1), nil},
		"empty Records":                  {`{"Records":[]}`, nil},
		"consumer's own ErrorCode text": {order, map[string]sqsjson.MessageAttributeValue{
			"ErrorCode": sattr("PaymentGatewayTimeout"), "ErrorMessage": sattr("did not answer"), "RequestID": sattr("r-1")}},
		"lambda attributes without RequestID": {order, map[string]sqsjson.MessageAttributeValue{
			"ErrorCode": nattr("200"), "ErrorMessage": sattr("boom")}},
		"rule attributes with a bad RULE_ARN": {order, map[string]sqsjson.MessageAttributeValue{
			"RULE_ARN": sattr("orders-rule"), "TARGET_ARN": sattr("arn:aws:lambda:r:1:function:f"), "ERROR_CODE": sattr("X")}},
	}
	for name, tt := range tests {
		e := Detect(&sqsjson.Message{MessageId: "m", Body: tt.body, MessageAttributes: tt.attrs})
		if e.Kind != KindRaw || e.Wraps != "" || e.Error != "" || string(e.Payload) != strings.TrimSpace(tt.body) {
			t.Errorf("%s: got %+v, want raw with the body as payload", name, see(e))
		}
	}
}

func TestOrigin(t *testing.T) {
	sns := Detect(&sqsjson.Message{Body: snsBody})
	want := Origin{SNS: &SNSOrigin{TopicArn: "arn:aws:sns:us-west-2:123456789012:orders", MessageID: "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
		Subject: "order placed", Message: order, Timestamp: "2024-03-10T22:04:00.000Z",
		MessageAttributes: map[string]SNSAttribute{"tenant": {Type: "String", Value: "acme"}}}}
	if diff := cmp.Diff(want, sns.Origin()); diff != "" {
		t.Errorf("sns origin (-want +got)\n%s", diff)
	}

	dlq := Detect(&sqsjson.Message{Body: eventBody, MessageAttributes: ruleAttrs})
	want = Origin{
		EventBridge: &EventOrigin{ID: "6a7e8feb-b491-4cf7-a9f1-bf3703467718", Source: "com.example.orders", DetailType: "OrderPlaced",
			Account: "111122223333", Region: "us-west-1", Time: "2024-03-10T22:04:00Z",
			Resources: []string{"arn:aws:ec2:us-west-1:123456789012:instance/i-1"}, Detail: json.RawMessage(order)},
		Rule: &RuleOrigin{RuleArn: "arn:aws:events:us-east-1:123456789012:rule/orders-to-fulfilment",
			TargetArn: "arn:aws:lambda:us-east-1:123456789012:function:fulfilment", ErrorCode: "SDK_CLIENT_ERROR",
			ErrorMessage: "Unable to invoke Lambda function: Rate exceeded", ExhaustedRetryCondition: "MaximumRetryAttempts", RetryAttempts: 185},
	}
	if diff := cmp.Diff(want, dlq.Origin()); diff != "" {
		t.Errorf("eventbridge-dlq origin (-want +got)\n%s", diff)
	}

	dest := Detect(&sqsjson.Message{Body: destinationBody})
	want = Origin{Lambda: &LambdaOrigin{RequestID: "e4b46cbf-b738-xmpl-8880-a18cdf61200e",
		FunctionArn: "arn:aws:lambda:us-east-2:123456789012:function:orders:$LATEST", Condition: "RetriesExhausted",
		ApproximateInvokeCount: 3, FunctionError: "Unhandled", ExecutedVersion: "$LATEST", StatusCode: 200}}
	if diff := cmp.Diff(want, dest.Origin()); diff != "" {
		t.Errorf("destination origin (-want +got)\n%s", diff)
	}

	async := Detect(&sqsjson.Message{Body: lambdaSNSEvent, MessageAttributes: lambdaAsyncAttrs})
	o := async.Origin()
	if o.Lambda == nil || o.Lambda.RequestID != "7ae1b6d2-4d0f-4c1b-9f55-6b1d1b0c2a11" || o.Lambda.StatusCode != 200 ||
		o.SNS == nil || o.SNS.TopicArn != "arn:aws:sns:us-east-1:123456789012:orders" || o.SNS.Subject != "" {
		t.Errorf("lambda-async origin = %+v / %+v", o.Lambda, o.SNS)
	}

	s3 := Detect(&sqsjson.Message{Body: s3Body})
	if diff := cmp.Diff(&S3Origin{EventName: "ObjectCreated:Put", Bucket: "orders-imports", Key: "2024/03/10/batch+1.csv", Records: 1}, s3.Origin().S3); diff != "" {
		t.Errorf("s3 origin (-want +got)\n%s", diff)
	}
	if o := Detect(&sqsjson.Message{Body: order}).Origin(); o != (Origin{}) {
		t.Errorf("raw origin = %+v, want none", o)
	}
}

func TestMarshalJSON(t *testing.T) {
	tests := map[string]struct {
		m    sqsjson.Message
		want string
	}{
		"raw":  {sqsjson.Message{Body: order}, `{"kind":"raw","payload":` + order + `,"error":""}`},
		"text": {sqsjson.Message{Body: "not json"}, `{"kind":"raw","payload":"not json","error":""}`},
		"destination": {sqsjson.Message{Body: destinationBody}, `{"kind":"lambda-destination","payload":` + order +
			`,"error":"CustomerNotFound: customer C-1042 not found","request_id":"e4b46cbf-b738-xmpl-8880-a18cdf61200e",` +
			`"origin":{"lambda":{"request_id":"e4b46cbf-b738-xmpl-8880-a18cdf61200e","function_arn":"arn:aws:lambda:us-east-2:123456789012:function:orders:$LATEST",` +
			`"condition":"RetriesExhausted","approximate_invoke_count":3,"function_error":"Unhandled","executed_version":"$LATEST","status_code":200}}}`},
	}
	for name, tt := range tests {
		b, err := json.Marshal(Detect(&tt.m))
		if err != nil || string(b) != tt.want {
			t.Errorf("%s: %s, %v\nwant %s", name, b, err, tt.want)
		}
	}
}

func TestPayloadPath(t *testing.T) {
	inHouse := `{"meta":{"producer":"billing","schema":"invoice"},"data":{"invoice_id":"inv-1","version":3},` +
		`"items":[{"sku":"a"},{"sku":"b"}],"blob":"{\"x\":1}","detail-type":{"v":1}}`
	tests := []struct {
		path, body, want, problem string
		json                      bool
	}{
		{".data", inHouse, `{"invoice_id":"inv-1","version":3}`, "", true},
		{".meta.schema", inHouse, `invoice`, "", false},
		{".items[1]", inHouse, `{"sku":"b"}`, "", true},
		{`."detail-type"`, inHouse, `{"v":1}`, "", true},
		{`.["detail-type"].v`, inHouse, `1`, "", true},
		{".blob", inHouse, `{"x":1}`, "", true},
		{".nothing", inHouse, "", "no .nothing in the payload (--payload)", false},
		{".items[7]", inHouse, "", "no .items[7] in the payload (--payload)", false},
		{".data", "not json", "", "no .data in the payload (--payload)", false},
		// The path applies to the detected payload: an SNS Message here.
		{".version", snsBody, "2", "", true},
	}
	for _, tt := range tests {
		d, err := NewDetector(tt.path)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		e := d.Detect(&sqsjson.Message{Body: tt.body})
		if string(e.Payload) != tt.want || e.PayloadJSON != tt.json || e.Problem != tt.problem {
			t.Errorf("%s: payload %q json %v problem %q; want %q %v %q", tt.path, e.Payload, e.PayloadJSON, e.Problem, tt.want, tt.json, tt.problem)
		}
	}
}

func TestParsePath(t *testing.T) {
	for _, ok := range []string{".a", ".a.b_c", ".a[0].b", `."x-y"`, `.["a b"]`, ".a[12]"} {
		p, err := ParsePath(ok)
		if err != nil {
			t.Errorf("%s: %v", ok, err)
			continue
		}
		if again, err := ParsePath(p.String()); err != nil || again.String() != p.String() {
			t.Errorf("%s: String() = %q does not parse back", ok, p.String())
		}
	}
	for bad, why := range map[string]string{
		"a": "starts with a dot", ".": "leave --payload out", ".a[": "[ without ]", ".a[x]": "not an array index",
		".a..b": "no key after the dot", `."a`: "unterminated", ".a b": "unexpected",
	} {
		_, err := ParsePath(bad)
		if err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "--payload") {
			t.Errorf("ParsePath(%q) = %v, want an error saying %q", bad, err, why)
		}
	}
}

// TestDetectAllocations keeps detection cheap on the classify hot path: no
// allocation for a raw body, the source and detail-type strings of an
// event, the decoded Message of an SNS notification, the request id and
// error text of a destination record.
func TestDetectAllocations(t *testing.T) {
	var d *Detector
	for _, tt := range []struct {
		body string
		max  float64
	}{{order, 0}, {eventBody, 2}, {snsBody, 2}, {destinationBody, 4}} {
		b := []byte(tt.body)
		m := &sqsjson.Message{Body: tt.body}
		if n := testing.AllocsPerRun(100, func() { _ = d.DetectBody(b, m) }); n > tt.max {
			t.Errorf("%.40s…: %v allocations, want at most %v", tt.body, n, tt.max)
		}
	}
}

func TestUnescape(t *testing.T) {
	in := `a\"b\\c\/d\n\t\u00e9\ud83d\ude00\ud800x`
	want := "a\"b\\c/d\n\té😀\uFFFDx"
	if got := string(unescape(nil, []byte(in))); got != want {
		t.Errorf("unescape = %q, want %q", got, want)
	}
	var viaJSON string
	if err := json.Unmarshal([]byte(`"`+in+`"`), &viaJSON); err != nil || viaJSON != want {
		t.Errorf("encoding/json reads %q, %v: the test's want is wrong", viaJSON, err)
	}
}

// FuzzDetect: hostile bodies never panic, and the payload of a raw body is
// the body.
func FuzzDetect(f *testing.F) {
	for _, b := range []string{order, snsBody, eventBody, destinationBody, s3Body, s3TestBody, lambdaSNSEvent, `{"a":"\u12`, `{"Records":[1]}`} {
		f.Add(b)
	}
	d, _ := NewDetector(".data[0]")
	f.Fuzz(func(t *testing.T, body string) {
		e := Detect(&sqsjson.Message{Body: body, MessageAttributes: ruleAttrs})
		_ = e.Origin()
		_, _ = json.Marshal(e)
		_ = d.Detect(&sqsjson.Message{Body: body})
		if r := Detect(&sqsjson.Message{Body: body}); r.Kind == KindRaw && string(r.Payload) != strings.TrimSpace(body) {
			t.Errorf("raw payload %q of body %q", r.Payload, body)
		}
	})
}
