package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"strconv"
)

// envelopeFixtures are the scenario files for each envelope kind, each with
// a baseline in its own shape. Bodies follow AWS's documented formats
// (docs/classify.md); SNS notifications are laid out exactly as moto 5.2.1
// delivers them (sorted keys, two-space indent), which
// envelope/moto_test.go checks against what moto actually sends.
func envelopeFixtures() map[string][]byte {
	r := rand.New(rand.NewSource(13))
	at := mustTime
	wrapSNS := func(body string) string { return snsNotification(r, body) }
	wrapEvent := func(body string) string { return eventBridgeEvent(r, body) }
	orders := func(base, version int) func(i int) string {
		return func(i int) string { return order(r, base+i, version) }
	}
	files := fixtureSet{}
	put := files.put

	// SNS → SQS, raw delivery off: a version-2 deploy (poison) and a
	// dependency outage the consumer recorded (transient).
	put("sns-baseline.jsonl", spread(r, 200, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"), plain(orders(5000, 1), wrapSNS)))
	put("sns-deploy.jsonl", spread(r, 340, at("2024-03-10T22:04:00Z"), at("2024-03-10T23:51:00Z"), plain(orders(0, 2), wrapSNS)))
	put("sns-outage.jsonl", spread(r, 180, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:31:00Z"), func(i int) msgSpec {
		return msgSpec{body: wrapSNS(order(r, 7000+i, 1)), receives: 4, attrs: map[string]string{
			"ErrorCode": "InventoryServiceUnavailable", "ErrorMessage": "inventory service returned HTTP 503"}}
	}))

	// EventBridge → SQS: detail.version 2 trickles in (poison; the
	// event's own version is "0" throughout).
	put("eventbridge-baseline.jsonl", spread(r, 200, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"), plain(orders(5000, 1), wrapEvent)))
	put("eventbridge-trickle.jsonl", spread(r, 60, at("2024-03-08T06:00:00Z"), at("2024-03-11T05:00:00Z"), plain(orders(300, 2), wrapEvent)))

	// EventBridge target DLQ: the target throttled for half an hour.
	put("eventbridge-dlq-outage.jsonl", spread(r, 120, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:31:00Z"), func(i int) msgSpec {
		return msgSpec{body: wrapEvent(order(r, 8000+i, 1)), receives: 1, attrs: map[string]string{
			"RULE_ARN":                  "arn:aws:events:us-east-1:123456789012:rule/orders-to-fulfilment",
			"TARGET_ARN":                "arn:aws:lambda:us-east-1:123456789012:function:fulfilment",
			"ERROR_CODE":                "SDK_CLIENT_ERROR",
			"ERROR_MESSAGE":             "Unable to invoke Lambda function: Rate exceeded",
			"EXHAUSTED_RETRY_CONDITION": "MaximumRetryAttempts",
			"RETRY_ATTEMPTS":            "185",
		}}
	}))

	// Lambda asynchronous invocation DLQ: the function timed out during a
	// slow-database hour; the baseline is the events as the function gets
	// them.
	put("lambda-async-baseline.jsonl", spread(r, 200, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"), plain(orders(5000, 1), nil)))
	put("lambda-async-timeouts.jsonl", spread(r, 150, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:50:00Z"), func(i int) msgSpec {
		id := uuid(r)
		return msgSpec{body: order(r, 9000+i, 1), receives: 1, attrs: map[string]string{"RequestID": id, "ErrorMessage": fmt.Sprintf(
			"2024-03-12T14:%02d:06.010Z %s Task timed out after 6.01 seconds", 2+i*48/150, id)}, numbers: map[string]string{"ErrorCode": "200"}}
	}))

	// Lambda on-failure destination: a bulk import whose customers do not
	// exist, within six minutes (data, though a burst), and a timeout burst
	// overlapping a trickle of missing customers (mixed).
	put("destination-baseline.jsonl", spread(r, 200, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"), func(i int) msgSpec {
		return msgSpec{body: destinationRecord(r, order(r, 5000+i, 1), "Success", ""), receives: 1}
	}))
	notFound := func(i int) msgSpec {
		c := fmt.Sprintf("C-%05d", 10000+r.Intn(90000))
		return msgSpec{body: destinationRecord(r, order(r, 20000+i, 1), "RetriesExhausted",
			`{"errorType":"CustomerNotFound","errorMessage":"customer `+c+` not found","trace":["CustomerNotFound: customer `+c+` not found","    at importOrder (/var/task/import.js:41:11)"]}`), receives: 1}
	}
	timedOut := func(i int) msgSpec {
		return msgSpec{body: destinationRecord(r, order(r, 30000+i, 1), "RetriesExhausted",
			fmt.Sprintf(`{"errorMessage":"2024-03-12T14:%02d:41.101Z %s Task timed out after 6.01 seconds"}`, 2+i%29, uuid(r))), receives: 1}
	}
	put("destination-import.jsonl", spread(r, 240, at("2024-03-11T09:00:00Z"), at("2024-03-11T09:06:00Z"), notFound))
	put("destination-mixed.jsonl", append(spread(r, 130, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:31:00Z"), timedOut),
		spread(r, 50, at("2024-03-10T00:00:00Z"), at("2024-03-13T00:00:00Z"), notFound)...))

	// S3 event notifications: a throttling burst over a trickle of objects
	// deleted before the import read them.
	put("s3-baseline.jsonl", spread(r, 200, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"), func(i int) msgSpec {
		return msgSpec{body: s3Event(r, i), receives: 1}
	}))
	put("s3-mixed.jsonl", append(spread(r, 100, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:20:00Z"), func(i int) msgSpec {
		return msgSpec{body: s3Event(r, 1000+i), receives: 3, attrs: map[string]string{"ErrorCode": "SlowDown", "ErrorMessage": "Please reduce your request rate."}}
	}), spread(r, 30, at("2024-03-09T00:00:00Z"), at("2024-03-12T00:00:00Z"), func(i int) msgSpec {
		return msgSpec{body: s3Event(r, 2000+i), receives: 3, attrs: map[string]string{"ErrorCode": "NoSuchKey", "ErrorMessage": "The specified key does not exist."}}
	})...))
	return files
}

// plain makes a spec of a body, wrapped by wrap when it is not nil.
func plain(body func(i int) string, wrap func(string) string) func(i int) msgSpec {
	return func(i int) msgSpec {
		b := body(i)
		if wrap != nil {
			b = wrap(b)
		}
		return msgSpec{body: b, receives: 1}
	}
}

func uuid(r *rand.Rand) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.Intn(1<<16), r.Intn(1<<12), r.Intn(1<<12), r.Int63n(1<<48))
}

// indented writes v as moto writes an SNS notification: sorted keys, two
// spaces, no HTML escaping.
func indented(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

// snsNotification is the documented SNS notification around message.
func snsNotification(r *rand.Rand, message string) string {
	sub := uuid(r)
	sig := make([]byte, 256)
	r.Read(sig)
	return indented(map[string]any{
		"Type": "Notification", "MessageId": uuid(r), "TopicArn": "arn:aws:sns:us-east-1:123456789012:orders",
		"Message": message, "Subject": "order placed", "Timestamp": "2024-03-10T22:04:00.000Z", "SignatureVersion": "1",
		"Signature":         base64(sig),
		"SigningCertURL":    "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-9c6465fa7f48f5cacd23014631ec1136.pem",
		"UnsubscribeURL":    "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:123456789012:orders:" + sub,
		"MessageAttributes": map[string]any{"tenant": map[string]string{"Type": "String", "Value": "acme"}},
	})
}

func base64(b []byte) string {
	s, _ := json.Marshal(b)
	return string(s[1 : len(s)-1])
}

// eventBridgeEvent is the documented event, compact, with detail = body.
func eventBridgeEvent(r *rand.Rand, detail string) string {
	return `{"version":"0","id":"` + uuid(r) + `","detail-type":"OrderPlaced","source":"com.example.orders","account":"123456789012",` +
		`"time":"2024-03-10T22:04:00Z","region":"us-east-1","resources":[],"detail":` + detail + `}`
}

// destinationRecord is the documented invocation record; response is the
// responsePayload ("" for a successful invocation's null).
func destinationRecord(r *rand.Rand, payload, condition, response string) string {
	ctx := `"responseContext":{"statusCode":200,"executedVersion":"$LATEST"}`
	if response == "" {
		response = "null"
	} else {
		ctx = `"responseContext":{"statusCode":200,"executedVersion":"$LATEST","functionError":"Unhandled"}`
	}
	return `{"version":"1.0","timestamp":"2024-03-11T09:00:05.568Z","requestContext":{"requestId":"` + uuid(r) +
		`","functionArn":"arn:aws:lambda:us-east-1:123456789012:function:orders-import:$LATEST","condition":"` + condition +
		`","approximateInvokeCount":3},"requestPayload":` + payload + `,` + ctx + `,"responsePayload":` + response + `}`
}

// s3Event is the documented ObjectCreated:Put notification.
func s3Event(r *rand.Rand, i int) string {
	return `{"Records":[{"eventVersion":"2.1","eventSource":"aws:s3","awsRegion":"us-east-1","eventTime":"2024-03-10T22:04:00.000Z",` +
		`"eventName":"ObjectCreated:Put","userIdentity":{"principalId":"AWS:AIDAEXAMPLEIMPORTER"},"requestParameters":{"sourceIPAddress":"203.0.113.7"},` +
		`"responseElements":{"x-amz-request-id":"` + strconv.FormatUint(r.Uint64(), 16) + `","x-amz-id-2":"EXAMPLE"},` +
		`"s3":{"s3SchemaVersion":"1.0","configurationId":"imports","bucket":{"name":"orders-imports","ownerIdentity":{"principalId":"A3NL1KOZZKExample"},` +
		`"arn":"arn:aws:s3:::orders-imports"},"object":{"key":"2024/03/10/batch-` + strconv.Itoa(i) + `.csv","size":` + strconv.Itoa(1000+r.Intn(9000)) +
		`,"eTag":"` + fmt.Sprintf("%032x", r.Uint64()) + `","sequencer":"` + fmt.Sprintf("%016X", r.Uint64()) + `"}}}]}`
}
