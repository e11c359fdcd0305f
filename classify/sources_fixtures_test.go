package classify

import (
	b64 "encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// sourceFixtures are the scenario files of issue 39's kinds: the error in a
// framework's own attributes, headers or payload fields (MassTransit,
// NServiceBus, Celery, Sidekiq, Spring Kafka, Symfony, Laravel, JMS and a
// by-name fallback), AWS failure records (a destination record without a
// responsePayload, a Kinesis on-failure record, an IoT rule error action),
// errors judged by meaning (declines, throttling, a secondary error in the
// handler of a timeout, a missing referenced row) and value patterns (S3
// keys URL-encoded), each with a baseline in its own shape.
func sourceFixtures() map[string][]byte {
	r := rand.New(rand.NewSource(39))
	at := mustTime
	files := fixtureSet{}
	put := files.put
	healthy := func(n int, spec func(i int) msgSpec) []sqsjson.Message {
		return spread(r, n, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"), spec)
	}

	// MassTransit: a batch of charges declined within twelve minutes, the
	// fault in MT-Fault-* attributes: a burst, but declines are data.
	mt := func(i int) string { return massTransit(r, payment(r, i, "", false)) }
	put("masstransit-baseline.jsonl", healthy(200, plain(mt, nil)))
	decline := func(msg string) func(i int) msgSpec {
		return func(i int) msgSpec {
			return msgSpec{body: mt(6000 + i), receives: 1, attrs: map[string]string{
				"MT-Fault-ExceptionType": "Stripe.StripeException", "MT-Fault-Message": msg,
				"MT-Fault-StackTrace":   "   at Stripe.StripeClient.RequestAsync[T](HttpMethod method, String path, BaseOptions options, RequestOptions requestOptions, CancellationToken cancellationToken)\n   at Payments.Worker.ChargePaymentConsumer.Consume(ConsumeContext`1 context) in /src/Payments.Worker/ChargePaymentConsumer.cs:line 42",
				"MT-Fault-ConsumerType": "Payments.Worker.ChargePaymentConsumer", "MT-Fault-Timestamp": "2024-03-12T09:04:11.2170000Z",
				"MT-Reason": "fault", "MT-Fault-RetryCount": "5", "Content-Type": "application/vnd.masstransit+json"}}
		}
	}
	put("masstransit-declines.jsonl", slices3(
		spread(r, 70, at("2024-03-12T09:00:00Z"), at("2024-03-12T09:12:00Z"), decline("Your card has insufficient funds.")),
		spread(r, 30, at("2024-03-12T09:00:30Z"), at("2024-03-12T09:11:00Z"), decline("Your card has expired.")),
		spread(r, 20, at("2024-03-12T09:01:00Z"), at("2024-03-12T09:11:30Z"), decline("Your card was declined."))))

	// NServiceBus: wrapped TransportMessages (Body base64, fault headers in
	// Headers); a partner API answered 429 for twenty minutes.
	put("nservicebus-baseline.jsonl", healthy(200, plain(func(i int) string { return nServiceBus(r, order(r, 5000+i, 1), nil) }, nil)))
	put("nservicebus-throttled.jsonl", spread(r, 90, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:22:00Z"), plain(func(i int) string {
		return nServiceBus(r, order(r, 8000+i, 1), map[string]string{
			"NServiceBus.ExceptionInfo.ExceptionType": "System.Net.Http.HttpRequestException",
			"NServiceBus.ExceptionInfo.Message":       "Response status code does not indicate success: 429 (Too Many Requests).",
			"NServiceBus.ExceptionInfo.Source":        "System.Net.Http",
			"NServiceBus.ExceptionInfo.StackTrace":    "System.Net.Http.HttpRequestException: Response status code does not indicate success: 429 (Too Many Requests).\n   at System.Net.Http.HttpResponseMessage.EnsureSuccessStatusCode()\n   at Shipping.Endpoint.CreateLabelHandler.Handle(CreateLabel message, IMessageHandlerContext context) in /src/Shipping.Endpoint/CreateLabelHandler.cs:line 31",
			"NServiceBus.FailedQ":                     "Shipping.Endpoint", "NServiceBus.TimeOfFailure": "2024-03-12 14:05:17:270371 Z",
		})
	}, nil)))

	// Celery: the ledger timed out for half an hour; some tasks then
	// failed again in their except block (a TypeError): one group.
	celery := func(i int, extra string) string {
		return `{"task":"billing.tasks.charge","id":"` + uuid(r) + `","args":[],"kwargs":` + payment(r, i, "", false) + `,"retries":3` + extra + `}`
	}
	put("celery-baseline.jsonl", healthy(200, plain(func(i int) string { return celery(i, "") }, nil)))
	timeout := "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='ledger.internal', port=443): Read timed out. (read timeout=10)"
	tb := "Traceback (most recent call last):\n  File \"/app/billing/tasks.py\", line 41, in charge\n    resp = session.post(LEDGER_URL, json=payload, timeout=10)\n  File \"/usr/local/lib/python3.12/site-packages/requests/adapters.py\", line 713, in send\n    raise ReadTimeout(e, request=request)\n" + timeout
	put("celery-secondary.jsonl", spread(r, 150, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:31:00Z"), plain(func(i int) string {
		if i%4 == 3 {
			return celery(7000+i, `,"status":"FAILURE","exc_type":"TypeError","exc_module":"builtins","exc_message":["'NoneType' object is not subscriptable"],"traceback":`+
				quoteJSON(tb+"\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"/app/billing/tasks.py\", line 47, in charge\n    log.warning(\"ledger timeout for %s\", last_response[\"id\"])\nTypeError: 'NoneType' object is not subscriptable"))
		}
		return celery(7000+i, `,"status":"FAILURE","exc_type":"ReadTimeout","exc_module":"requests.exceptions","exc_message":["HTTPSConnectionPool(host='ledger.internal', port=443): Read timed out. (read timeout=10)"],"traceback":`+quoteJSON(tb))
	}, nil)))

	// Sidekiq: dead jobs of a new location the locations table lacks — a
	// foreign-key violation on a value the baseline never has: data.
	locations := []string{"LOC-BER-1", "LOC-HAM-2", "LOC-FRA-3"}
	job := func(i int, loc, extra string) string {
		return fmt.Sprintf(`{"class":"ShipmentJob","args":[{"shipment_id":"shp-%06d","order_id":"ord-%06d","location_id":"%s"}],"retry":true,"queue":"shipments","jid":"%024x","created_at":%d.%03d,"enqueued_at":%d.%03d%s}`,
			i, i, loc, r.Uint64(), 1710000000+i*37, r.Intn(1000), 1710000000+i*37, r.Intn(1000), extra)
	}
	put("sidekiq-baseline.jsonl", healthy(300, plain(func(i int) string { return job(i, locations[r.Intn(3)], "") }, nil)))
	put("sidekiq-new-location.jsonl", spread(r, 55, at("2024-03-10T06:00:00Z"), at("2024-03-12T05:00:00Z"), plain(func(i int) string {
		return job(4000+i, "LOC-MUC-4", `,"error_message":`+quoteJSON("PG::ForeignKeyViolation: ERROR:  insert or update on table \"shipments\" violates foreign key constraint \"fk_rails_5d2a5e1f3c\"\nDETAIL:  Key (location_id)=(LOC-MUC-4) is not present in table \"locations\".")+
			`,"error_class":"ActiveRecord::InvalidForeignKey","failed_at":1710300000.5,"retry_count":25`)
	}, nil)))

	// Spring Kafka's DLT headers (bridged to SQS attributes): the producer
	// now sends amount as an object; Jackson cannot read it.
	put("spring-dlt.jsonl", spread(r, 80, at("2024-03-12T10:00:00Z"), at("2024-03-12T10:45:00Z"), func(i int) msgSpec {
		body := strings.Replace(payment(r, 600+i, "", false), `"amount":`, `"amount":{"currency":"EUR","value":`, 1)
		body = strings.Replace(body, `,"currency":"EUR"`, `},"currency":"EUR"`, 1)
		return msgSpec{body: body, receives: 1, attrs: map[string]string{
			"kafka_dlt-exception-fqcn":       "org.springframework.kafka.listener.ListenerExecutionFailedException",
			"kafka_dlt-exception-cause-fqcn": "com.fasterxml.jackson.databind.exc.MismatchedInputException",
			"kafka_dlt-exception-message":    "Listener method 'public void com.shop.payments.CaptureListener.on(com.shop.payments.PaymentCaptured)' threw exception; nested exception is com.fasterxml.jackson.databind.exc.MismatchedInputException: Cannot deserialize value of type `java.math.BigDecimal` from Object value (token `JsonToken.START_OBJECT`)",
			"kafka_dlt-original-topic":       "payments.captured", "kafka_dlt-original-partition": fmt.Sprint(r.Intn(6)),
			"kafka_dlt-original-offset": fmt.Sprint(1200000 + i)}}
	}))

	// Symfony Messenger on SQS: the ErrorDetailsStamp travels in the
	// X-Symfony-Messenger attribute; customers deleted before their
	// invoices were sent, over three days.
	invoice := func(i int) string {
		return fmt.Sprintf(`{"invoice_id":"inv-%06d","customer_id":%d,"amount":%.2f,"currency":"EUR","template":"monthly"}`, i, 1000+r.Intn(9000), float64(500+r.Intn(90000))/100)
	}
	symfony := func(stamps map[string]string) map[string]string {
		h := map[string]string{"type": `App\Message\SendInvoice`, `X-Message-Stamp-Symfony\Component\Messenger\Stamp\BusNameStamp`: `[{"busName":"messenger.bus.default"}]`}
		for k, v := range stamps {
			h[k] = v
		}
		b, _ := json.Marshal(h)
		return map[string]string{"X-Symfony-Messenger": string(b), "Content-Type": "application/json"}
	}
	put("symfony-baseline.jsonl", healthy(200, func(i int) msgSpec { return msgSpec{body: invoice(i), receives: 1, attrs: symfony(nil)} }))
	put("symfony-not-found.jsonl", spread(r, 45, at("2024-03-09T00:00:00Z"), at("2024-03-12T00:00:00Z"), func(i int) msgSpec {
		id := 1000 + r.Intn(9000)
		return msgSpec{body: invoice(3000 + i), receives: 4, attrs: symfony(map[string]string{
			`X-Message-Stamp-Symfony\Component\Messenger\Stamp\ErrorDetailsStamp`: fmt.Sprintf(`[{"exceptionClass":"Doctrine\\ORM\\EntityNotFoundException","exceptionCode":0,"exceptionMessage":"Entity of type 'App\\Entity\\Customer' for IDs id(%d) was not found","flattenException":null}]`, id),
			`X-Message-Stamp-Symfony\Component\Messenger\Stamp\RedeliveryStamp`:   `[{"retryCount":3,"redeliveredAt":"2024-03-10T10:00:00+00:00"}]`})}
	}))

	// Laravel: the job's failed() handler forwards it with its exception;
	// the label service answered 503 for twenty-five minutes.
	laravel := func(i int, extra string) string {
		return fmt.Sprintf(`{"uuid":"%s","displayName":"App\\Jobs\\CreateShippingLabel","job":"Illuminate\\Queue\\CallQueuedHandler@call","maxTries":3,"maxExceptions":null,"failOnTimeout":false,"backoff":null,"timeout":60,"retryUntil":null,"data":{"commandName":"App\\Jobs\\CreateShippingLabel","command":"O:30:\"App\\Jobs\\CreateShippingLabel\":1:{s:7:\"orderId\";i:%d;}"}%s}`, uuid(r), 40000+i, extra)
	}
	put("laravel-baseline.jsonl", healthy(200, plain(func(i int) string { return laravel(i, "") }, nil)))
	put("laravel-outage.jsonl", spread(r, 60, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:27:00Z"), plain(func(i int) string {
		return laravel(9000+i, `,"exception":`+quoteJSON("GuzzleHttp\\Exception\\ServerException: Server error: `POST https://api.labels.example/v2/labels` resulted in a `503 Service Unavailable` response:\n{\"message\":\"upstream unavailable\"}\n in /var/www/vendor/guzzlehttp/guzzle/src/Exception/RequestException.php:113\nStack trace:\n#0 /var/www/vendor/guzzlehttp/guzzle/src/Middleware.php(72): GuzzleHttp\\Exception\\RequestException::create()"))
	}, nil)))

	// JMS's dlqDeliveryFailureCause (a constraint violation), and a
	// consumer's own lastFailureReason attribute, read by its name.
	put("jms-fallback.jsonl", append(spread(r, 50, at("2024-03-09T00:00:00Z"), at("2024-03-12T00:00:00Z"), func(i int) msgSpec {
		return msgSpec{body: order(r, 12000+i, 1), receives: 7, attrs: map[string]string{"dlqDeliveryFailureCause": "java.lang.Throwable: Delivery[7] exceeds redelivery policy limit:RedeliveryPolicy {destination = queue://orders, collisionAvoidanceFactor = 0.15, maximumRedeliveries = 6, maximumRedeliveryDelay = -1, initialRedeliveryDelay = 1000, useCollisionAvoidance = false, useExponentialBackOff = false, backOffMultiplier = 5.0, redeliveryDelay = 1000, preDispatchCheck = true}, cause:org.hibernate.exception.ConstraintViolationException: could not execute statement"}}
	}), spread(r, 30, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:20:00Z"), func(i int) msgSpec {
		return msgSpec{body: order(r, 13000+i, 1), receives: 3, attrs: map[string]string{"lastFailureReason": "pricing-service answered 502 Bad Gateway", "lastFailureAt": "2024-03-12T14:05:00Z"}}
	})...))

	// A Lambda on-failure destination without a responsePayload: events
	// that waited past the function's maximum event age.
	put("destination-expired.jsonl", spread(r, 150, at("2024-03-12T16:00:00Z"), at("2024-03-12T16:40:00Z"), plain(func(i int) string {
		return `{"version":"1.0","timestamp":"2024-03-12T16:00:05.568Z","requestContext":{"requestId":"` + uuid(r) +
			`","functionArn":"arn:aws:lambda:us-east-1:123456789012:function:orders-import:$LATEST","condition":"EventAgeExceeded","approximateInvokeCount":0},"requestPayload":` + order(r, 50000+i, 1) + `}`
	}, nil)))

	// A Kinesis event source mapping's on-failure records: batches older
	// than its maximum record age; the records stay in the stream.
	put("kinesis-baseline.jsonl", healthy(100, plain(func(i int) string { return click(r, i) }, nil)))
	put("kinesis-failures.jsonl", spread(r, 24, at("2024-03-12T03:00:00Z"), at("2024-03-12T03:50:00Z"), plain(func(i int) string {
		return streamFailure(r, i)
	}, nil)))

	// IoT rule error actions: DynamoDB throttled the telemetry rule, and a
	// firmware started sending temperature as a string — seen only in the
	// decoded original payload.
	put("iot-baseline.jsonl", healthy(200, plain(func(i int) string { return telemetry(r, i, false) }, nil)))
	put("iot-errors.jsonl", append(spread(r, 80, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:25:00Z"), plain(func(i int) string {
		return iotError(r, telemetry(r, 1000+i, false), "Failed to put item in DynamoDB table. The error received was The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API. (Service: AmazonDynamoDBv2; Status Code: 400; Error Code: ProvisionedThroughputExceededException; Request ID: "+uuid(r)+")")
	}, nil)), spread(r, 25, at("2024-03-11T00:00:00Z"), at("2024-03-12T12:00:00Z"), plain(func(i int) string {
		return iotError(r, telemetry(r, 2000+i, true), "Failed to put item in DynamoDB table. The error received was One or more parameter values were invalid: Type mismatch for Index Key temperature_c Expected: N Actual: S IndexName: by-temperature (Service: AmazonDynamoDBv2; Status Code: 400; Error Code: ValidationException; Request ID: "+uuid(r)+")")
	}, nil))...))

	// S3 notifications of keys with spaces and parentheses, URL-encoded as
	// S3 sends them; the consumer asks for the encoded key: NoSuchKey, but
	// the pattern no baseline key has is the proof.
	put("s3-encoded.jsonl", spread(r, 40, at("2024-03-12T09:00:00Z"), at("2024-03-12T09:40:00Z"), func(i int) msgSpec {
		key := fmt.Sprintf("uploads/ACME+Corp/2024-03-12+price+list+%%28part+%d%%29.csv", i)
		body := strings.Replace(s3Event(r, 3000+i), fmt.Sprintf(`"key":"2024/03/10/batch-%d.csv"`, 3000+i), `"key":"`+key+`"`, 1)
		return msgSpec{body: body, receives: 3, attrs: map[string]string{"ErrorCode": "NoSuchKey", "ErrorMessage": "The specified key does not exist."}}
	}))

	// SNS without raw message delivery: a stock service republishes the
	// orders it could not reserve, its error in the notification's own
	// MessageAttributes.
	put("sns-republished.jsonl", spread(r, 48, at("2024-03-09T00:00:00Z"), at("2024-03-12T00:00:00Z"), plain(func(i int) string {
		n := map[string]any{}
		_ = json.Unmarshal([]byte(snsNotification(r, order(r, 15000+i, 1))), &n)
		n["MessageAttributes"] = map[string]any{"tenant": map[string]string{"Type": "String", "Value": "acme"},
			"ErrorCode":    map[string]string{"Type": "String", "Value": "ReservationFailed"},
			"ErrorMessage": map[string]string{"Type": "String", "Value": fmt.Sprintf("SKU-%d is out of stock in warehouse WH-BER-1", 1000+r.Intn(500))}}
		return indented(n)
	}, nil)))
	return files
}

func slices3(a, b, c []sqsjson.Message) []sqsjson.Message { return append(append(a, b...), c...) }

// massTransit is MassTransit's JSON envelope around message.
func massTransit(r *rand.Rand, message string) string {
	return `{"messageId":"` + uuid(r) + `","requestId":null,"correlationId":null,"conversationId":"` + uuid(r) + `","initiatorId":null,` +
		`"sourceAddress":"amazonsqs://us-east-1/payments_api_bus_ioyyyyrd8e","destinationAddress":"amazonsqs://us-east-1/charge-payment",` +
		`"responseAddress":null,"faultAddress":null,"messageType":["urn:message:Payments.Contracts:ChargePayment"],"message":` + message +
		`,"expirationTime":null,"sentTime":"2024-03-12T09:00:00.0000000Z","headers":{},"host":{"machineName":"ip-10-0-1-23","processName":"Payments.Worker",` +
		`"processId":1,"assembly":"Payments.Worker","assemblyVersion":"1.4.2.0","frameworkVersion":"8.0.2","massTransitVersion":"8.1.3.0","operatingSystemVersion":"Unix 5.10.205.195"}}`
}

// nServiceBus is NServiceBus's wrapped SQS TransportMessage: the headers,
// and the body base64-encoded.
func nServiceBus(r *rand.Rand, body string, fault map[string]string) string {
	h := map[string]string{"NServiceBus.MessageId": uuid(r), "NServiceBus.MessageIntent": "Send", "NServiceBus.ConversationId": uuid(r),
		"NServiceBus.CorrelationId": uuid(r), "NServiceBus.OriginatingEndpoint": "Shipping.Api", "NServiceBus.ContentType": "application/json",
		"NServiceBus.EnclosedMessageTypes": "Shipping.Messages.CreateLabel, Shipping.Messages, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null",
		"NServiceBus.Version":              "8.1.6", "NServiceBus.TimeSent": "2024-03-12 14:02:00:000000 Z"}
	for k, v := range fault {
		h[k] = v
	}
	b, _ := json.Marshal(map[string]any{"Headers": h, "Body": b64.StdEncoding.EncodeToString([]byte(body)), "S3BodyKey": nil})
	return string(b)
}

// click is a clickstream event, as the Kinesis stream holds them.
func click(r *rand.Rand, i int) string {
	return fmt.Sprintf(`{"event_id":"%s","session":"s-%06d","page":"/products/%d","action":"%s","ts":"2024-03-10T22:04:%02dZ"}`,
		uuid(r), r.Intn(999999), 100+r.Intn(900), []string{"view", "click", "add_to_cart"}[r.Intn(3)], i%60)
}

// streamFailure is a Kinesis event source mapping's on-failure record.
func streamFailure(r *rand.Rand, i int) string {
	start := fmt.Sprintf("4960118965842235937883629852%028d", 1000000+i*500)
	end := fmt.Sprintf("4960118965842235937883629852%028d", 1000000+i*500+499)
	return `{"requestContext":{"requestId":"` + uuid(r) + `","functionArn":"arn:aws:lambda:us-east-1:123456789012:function:clickstream-enricher","condition":"MaximumRecordAgeExceeded","approximateInvokeCount":1},` +
		`"responseContext":{"statusCode":200,"executedVersion":"$LATEST","functionError":"Unhandled"},"version":"1.0","timestamp":"2024-03-12T03:10:06.021Z",` +
		`"KinesisBatchInfo":{"shardId":"shardId-00000000000` + fmt.Sprint(i%2) + `","startSequenceNumber":"` + start + `","endSequenceNumber":"` + end +
		`","approximateArrivalOfFirstRecord":"2024-03-11T03:08:04.835Z","approximateArrivalOfLastRecord":"2024-03-11T03:08:05.580Z","batchSize":500,"streamArn":"arn:aws:kinesis:us-east-1:123456789012:stream/clickstream"}}`
}

// telemetry is a truck's reading; asString sends the temperature as text.
func telemetry(r *rand.Rand, i int, asString bool) string {
	temp := any(float64(r.Intn(400)-50) / 10)
	if asString {
		temp = fmt.Sprintf("%.1f", temp)
	}
	b, _ := json.Marshal(map[string]any{"device_id": fmt.Sprintf("truck-%02d", r.Intn(40)), "seq": i, "speed_kmh": r.Intn(120),
		"temperature_c": temp, "fuel_pct": r.Intn(100), "lat": 52.5 + r.Float64(), "lon": 13.4 + r.Float64()})
	return string(b)
}

// iotError is an IoT rule's error action message for payload.
func iotError(r *rand.Rand, payload, errMsg string) string {
	b, _ := json.Marshal(map[string]any{"ruleName": "TelemetryToDynamo", "topic": "fleet/telemetry", "cloudwatchTraceId": uuid(r),
		"clientId": fmt.Sprintf("truck-%02d", r.Intn(40)), "base64OriginalPayload": b64.StdEncoding.EncodeToString([]byte(payload)),
		"failures": []map[string]string{{"failedAction": "DynamoActionV2", "failedResource": "fleet-telemetry", "errorMessage": errMsg}}})
	return string(b)
}
