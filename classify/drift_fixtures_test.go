package classify

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// driftFixtures are the scenario files of issue 24's kinds — a type
// change, a new enum value, CloudEvents (structured and binary), Step
// Functions Error/Cause, wrapper error fields, multi-line errors, offloaded
// payloads — each with a baseline in its own shape.
func driftFixtures() map[string][]byte {
	r := rand.New(rand.NewSource(24))
	at := mustTime
	files := fixtureSet{}
	put := files.put
	healthy := func(n int, body func(i int) string) []sqsjson.Message {
		return spread(r, n, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"), plain(body, nil))
	}

	// A type change: amount number → string, items list → object; same
	// keys, no version field, no error attribute, a burst after a deploy.
	put("payments-baseline.jsonl", healthy(100, func(i int) string { return payment(r, i, "", false) }))
	put("type-change.jsonl", spread(r, 170, at("2024-03-11T22:04:00Z"), at("2024-03-11T23:10:00Z"),
		plain(func(i int) string { return payment(r, 500+i, "", true) }, nil)))

	// A new enum value: every message carries PARTIALLY_REFUNDED; the
	// consumer says "Invalid enum value" as a zod list of issues (a
	// multi-line JSON array in ErrorMessage).
	put("refunds-baseline.jsonl", healthy(400, func(i int) string { return payment(r, i, "", false) }))
	put("enum-new-value.jsonl", spread(r, 140, at("2024-03-12T09:00:00Z"), at("2024-03-12T09:40:00Z"), func(i int) msgSpec {
		return msgSpec{body: payment(r, 900+i, "PARTIALLY_REFUNDED", false), receives: 3, attrs: map[string]string{
			"ErrorCode": "ZodError", "ErrorMessage": zodEnum("status", "PARTIALLY_REFUNDED")}}
	}))
	// Validation on values that differ per message, in known content: data.
	put("validation-data.jsonl", spread(r, 60, at("2024-03-08T06:00:00Z"), at("2024-03-11T05:00:00Z"), func(i int) msgSpec {
		bad := fmt.Sprintf("%s@@example", []string{"ana", "bruno", "carla", "diego", "elena", "fabio"}[i%6]+fmt.Sprint(i))
		return msgSpec{body: payment(r, 1200+i, "", false), receives: 3, attrs: map[string]string{
			"ErrorCode": "ValidationError", "ErrorMessage": "1 validation error for Payment\nbilling_email\n  value is not a valid email address [type=value_error, input_value='" + bad + "', input_type=str]"}}
	}))

	// CloudEvents, structured: a new dataschema whose data changed type;
	// and, against the same baseline, an outage with the old schema.
	ce := func(schema string, data string) string {
		return `{"specversion":"1.0","id":"` + uuid(r) + `","source":"/payments/eu-` + fmt.Sprint(r.Intn(3)) + `","type":"com.example.payment.captured",` +
			`"datacontenttype":"application/json","dataschema":"https://schemas.example.com/payment/` + schema + `","time":"2024-03-10T22:04:00Z","data":` + data + `}`
	}
	put("ce-baseline.jsonl", healthy(200, func(i int) string { return ce("1", payment(r, i, "", false)) }))
	put("ce-schema.jsonl", spread(r, 120, at("2024-03-12T10:00:00Z"), at("2024-03-12T10:30:00Z"),
		plain(func(i int) string { return ce("2", payment(r, 700+i, "", true)) }, nil)))
	put("ce-outage.jsonl", spread(r, 90, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:31:00Z"), func(i int) msgSpec {
		return msgSpec{body: ce("1", payment(r, 800+i, "", false)), receives: 4, attrs: map[string]string{
			"ErrorCode": "LedgerUnavailable", "ErrorMessage": "ledger service returned HTTP 503"}}
	}))

	// CloudEvents, binary: ce_* attributes, the data is the body; a new
	// status value in every message.
	binary := func(body string) msgSpec {
		return msgSpec{body: body, receives: 1, attrs: map[string]string{"ce_specversion": "1.0", "ce_id": uuid(r),
			"ce_source": "/payments", "ce_type": "com.example.payment.captured", "content-type": "application/json"}}
	}
	put("ce-binary-baseline.jsonl", spread(r, 200, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"),
		func(i int) msgSpec { return binary(payment(r, i, "", false)) }))
	put("ce-binary-enum.jsonl", spread(r, 75, at("2024-03-09T00:00:00Z"), at("2024-03-12T00:00:00Z"),
		func(i int) msgSpec { return binary(payment(r, 300+i, "CHARGEBACK", false)) }))

	// Step Functions: a Catch with ResultPath $.error sends the state on;
	// a burst of task timeouts over a trickle of unknown customers whose
	// Cause is the Lambda error document.
	sfn := func(i int, errName, cause string) string {
		return strings.TrimSuffix(payment(r, i, "", false), "}") + `,"error":{"Error":` + quoteJSON(errName) + `,"Cause":` + quoteJSON(cause) + `}}`
	}
	put("sfn-mixed.jsonl", append(spread(r, 90, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:31:00Z"),
		plain(func(i int) string { return sfn(2000+i, "States.Timeout", "") }, nil)),
		spread(r, 30, at("2024-03-09T00:00:00Z"), at("2024-03-13T00:00:00Z"), plain(func(i int) string {
			c := fmt.Sprintf("C-%05d", 10000+r.Intn(90000))
			return sfn(3000+i, "CustomerNotFound", `{"errorType":"CustomerNotFound","errorMessage":"customer `+c+` not found","trace":["CustomerNotFound: customer `+c+` not found","    at charge (/var/task/charge.js:41:11)"]}`)
		}, nil))...))

	// An in-house wrapper's error fields: failureReason with a Node stack
	// (connection refused, a burst), and error with a Java trace whose root
	// cause is a deserialization failure.
	put("wrapper-errors.jsonl", append(spread(r, 100, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:20:00Z"), plain(func(i int) string {
		return strings.TrimSuffix(payment(r, 4000+i, "", false), "}") + `,"failureReason":` +
			quoteJSON("Error: connect ECONNREFUSED 10.0.0.7:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)") + `}`
	}, nil)), spread(r, 40, at("2024-03-09T00:00:00Z"), at("2024-03-12T00:00:00Z"), plain(func(i int) string {
		return strings.TrimSuffix(payment(r, 5000+i, "", false), "}") + `,"error":` + quoteJSON("org.springframework.messaging.MessageHandlingException: error occurred in message handler\n\tat org.springframework.integration.handler.A.handle(A.java:191)\n"+
			"Caused by: com.fasterxml.jackson.databind.exc.MismatchedInputException: Cannot deserialize value of type `java.math.BigDecimal` from Object value\n\tat com.fasterxml.jackson.databind.B.c(B.java:59)") + `}`
	}, nil))...))

	// Offloaded payloads: the baseline holds pointers too. An outage over
	// pointers (transient), and pointers whose objects changed type —
	// against a baseline that also holds small payloads inline.
	pointer := func(bucket string) msgSpec {
		return msgSpec{body: `["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"` + bucket + `","s3Key":"` + uuid(r) + `"}]`,
			receives: 1, numbers: map[string]string{"ExtendedPayloadSize": fmt.Sprint(262144 + r.Intn(900000))}}
	}
	put("offload-baseline.jsonl", spread(r, 300, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"), func(i int) msgSpec {
		if i%3 == 0 {
			return msgSpec{body: payment(r, i, "", false), receives: 1}
		}
		return pointer("payments-large")
	}))
	put("offload-outage.jsonl", spread(r, 140, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:31:00Z"), func(i int) msgSpec {
		s := pointer("payments-large")
		s.receives, s.attrs = 4, map[string]string{"ErrorCode": "LedgerUnavailable", "ErrorMessage": "ledger service returned HTTP 503"}
		return s
	}))
	put("offload-drift.jsonl", spread(r, 80, at("2024-03-12T09:00:00Z"), at("2024-03-12T09:30:00Z"),
		func(i int) msgSpec { return pointer("payments-large") }))
	return files
}

var statuses = []string{"PAID", "PAID", "PAID", "REFUNDED", "CANCELLED", "PENDING", "FAILED"}

// payment is a payment event; status "" picks a known one; changed turns
// amount into a string and items into an object.
func payment(r *rand.Rand, i int, status string, changed bool) string {
	if status == "" {
		status = statuses[r.Intn(len(statuses))]
	}
	amount := float64(500+r.Intn(20000)) / 100
	var amt, items any = amount, []map[string]any{{"sku": fmt.Sprintf("SKU-%d", 1000+r.Intn(500)), "qty": 1 + r.Intn(3)}}
	if changed {
		amt = fmt.Sprintf("%.2f", amount)
		items = map[string]any{"count": 1 + r.Intn(3)}
	}
	b, _ := json.Marshal(map[string]any{"payment_id": fmt.Sprintf("pay-%06d", i), "amount": amt, "currency": "EUR",
		"status": status, "method": []string{"card", "sepa", "paypal"}[r.Intn(3)], "items": items,
		"customer": map[string]any{"id": fmt.Sprintf("C-%05d", r.Intn(90000)), "country": []string{"DE", "FR", "ES", "PT"}[r.Intn(4)]}})
	return string(b)
}

// zodEnum is the message zod's ZodError carries: the issues as an indented
// JSON array.
func zodEnum(path, value string) string {
	b, _ := json.MarshalIndent([]map[string]any{{"received": value, "code": "invalid_enum_value",
		"options": []string{"PAID", "REFUNDED", "CANCELLED", "PENDING", "FAILED"}, "path": []string{path},
		"message": "Invalid enum value. Expected 'PAID' | 'REFUNDED' | 'CANCELLED' | 'PENDING' | 'FAILED', received '" + value + "'"}}, "", "  ")
	return string(b)
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
