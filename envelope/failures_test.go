package envelope

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// The documented failure records (Lambda developer guide, IoT developer
// guide) and the frameworks' SQS envelopes.
const (
	ddbStreamFailure = `{"requestContext":{"requestId":"316aa6d0-8154-xmpl-9af7-85d5f4a6bc81","functionArn":"arn:aws:lambda:us-east-2:123456789012:function:myfunction",` +
		`"condition":"RetryAttemptsExhausted","approximateInvokeCount":1},"responseContext":{"statusCode":200,"executedVersion":"$LATEST","functionError":"Unhandled"},` +
		`"version":"1.0","timestamp":"2019-11-14T00:13:49.717Z","DDBStreamBatchInfo":{"shardId":"shardId-00000001573689847184-864758bb",` +
		`"startSequenceNumber":"800000000003126276362","endSequenceNumber":"800000000003126276362","approximateArrivalOfFirstRecord":"2019-11-14T00:13:19Z",` +
		`"approximateArrivalOfLastRecord":"2019-11-14T00:13:19Z","batchSize":1,"streamArn":"arn:aws:dynamodb:us-east-2:123456789012:table/mytable/stream/2019-11-14T00:04:06.388"}}`
	iotBody = `{"ruleName":"TestAction","topic":"testme/action","cloudwatchTraceId":"7e146a2c-95b5-6caf-98b9-50e3969734c7","clientId":"iotconsole-1511213971966-0",` +
		`"base64OriginalPayload":"eyJtZXNzYWdlIjogIkhlbGxvIn0=","failures":[{"failedAction":"S3Action","failedResource":"us-east-1-s3-verify-user",` +
		`"errorMessage":"Failed to put S3 object. The error received was The specified bucket does not exist (Service: Amazon S3; Status Code: 404; Error Code: NoSuchBucket)"}]}`
	expiredBody = `{"version":"1.0","timestamp":"2024-03-12T16:00:05.568Z","requestContext":{"requestId":"e4b46cbf-b738-xmpl-8880-a18cdf61200e",` +
		`"functionArn":"arn:aws:lambda:us-east-2:123456789012:function:orders:$LATEST","condition":"EventAgeExceeded","approximateInvokeCount":0},"requestPayload":` + order + `}`
	mtBody  = `{"messageId":"0b000000-0000-0000-0000-000000000001","messageType":["urn:message:Orders.Contracts:PlaceOrder"],"message":` + order + `,"headers":{"MT-Fault-Message":"boom"},"host":{"machineName":"h"}}`
	nsbBody = `{"Headers":{"NServiceBus.MessageId":"a1","NServiceBus.ExceptionInfo.ExceptionType":"System.TimeoutException"},"Body":"eyJvcmRlcl9pZCI6Im9yZC0xIn0=","S3BodyKey":null}`
)

func TestFailureRecords(t *testing.T) {
	type view struct {
		Kind     Kind
		Payload  string
		Error    string
		Detached bool
		Batch    *Batch
		Headers  string
	}
	tests := []struct {
		name, body string
		want       view
	}{
		{"dynamodb stream on-failure record: no payload, the batch range", ddbStreamFailure, view{Kind: KindStreamFailure,
			Error: "RetryAttemptsExhausted: function error Unhandled", Detached: true,
			Batch: &Batch{Source: "dynamodb", Stream: "arn:aws:dynamodb:us-east-2:123456789012:table/mytable/stream/2019-11-14T00:04:06.388",
				Shard: "shardId-00000001573689847184-864758bb", Start: "800000000003126276362", End: "800000000003126276362", Size: 1}}},
		{"iot rule error action: the original payload decoded", iotBody, view{Kind: KindIoTError, Payload: `{"message": "Hello"}`,
			Error: "S3Action: Failed to put S3 object. The error received was The specified bucket does not exist (Service: Amazon S3; Status Code: 404; Error Code: NoSuchBucket)"}},
		{"destination record without a responsePayload: the condition", expiredBody, view{Kind: KindLambdaDestination, Payload: order, Error: "EventAgeExceeded"}},
		{"destination record of a Java function: the cause chain kept", strings.Replace(destinationBody,
			`"responsePayload":{"errorType":"CustomerNotFound","errorMessage":"customer C-1042 not found","trace":["at handler (/var/task/index.js:12:9)"]}`,
			`"responsePayload":{"errorMessage":"charge failed","errorType":"java.lang.IllegalStateException","stackTrace":[],"cause":{"errorMessage":"Read timed out","errorType":"java.net.SocketTimeoutException","stackTrace":[]}}`, 1),
			view{Kind: KindLambdaDestination, Payload: order, Error: "java.lang.IllegalStateException: charge failed\nCaused by: java.net.SocketTimeoutException: Read timed out"}},
		{"masstransit envelope: message, headers", mtBody, view{Kind: KindMassTransit, Payload: order, Headers: `{"MT-Fault-Message":"boom"}`}},
		{"nservicebus transport message: Body base64", nsbBody, view{Kind: KindNServiceBus, Payload: `{"order_id":"ord-1"}`,
			Headers: `{"NServiceBus.MessageId":"a1","NServiceBus.ExceptionInfo.ExceptionType":"System.TimeoutException"}`}},
		{"a body with a topic and failures but no payload stays raw", `{"ruleName":"r","topic":"t","failures":[]}`, view{Kind: KindRaw, Payload: `{"ruleName":"r","topic":"t","failures":[]}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Detect(&sqsjson.Message{Body: tt.body})
			got := view{e.Kind, string(e.Payload), e.Error, e.Detached, e.Batch, string(e.Headers)}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	// A detached record is recognised by its own bytes, not an empty payload.
	a := &sqsjson.Message{Body: ddbStreamFailure}
	b := &sqsjson.Message{Body: strings.ReplaceAll(ddbStreamFailure, "800000000003126276362", "800000000003126276999")}
	if PayloadSHA256(a) == PayloadSHA256(&sqsjson.Message{Body: ""}) || PayloadSHA256(a) == PayloadSHA256(b) {
		t.Errorf("stream on-failure records share a payload hash with an empty body or with each other")
	}
}
