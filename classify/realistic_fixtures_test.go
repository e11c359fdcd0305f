package classify

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"time"
)

// realisticFixtures are DLQs of the kinds issue 45 found misread: a
// DynamoDB conditional check, a PostgreSQL error in German and in Spanish
// with its SQLSTATE, two HTTP status classes under one error class,
// timeouts on outliers only (and on ordinary messages), decode failures
// worded the runtimes' own way, and a shared value of a field unrelated to
// the contract in a dependency's outage.
func realisticFixtures() map[string][]byte {
	r := rand.New(rand.NewSource(45))
	at := mustTime
	files := fixtureSet{}
	put := files.put
	// lambdaDLQ is what Lambda puts on an asynchronous invocation's DLQ:
	// the event, and RequestID, ErrorCode, ErrorMessage attributes.
	lambdaDLQ := func(body, msg string) msgSpec {
		id := uuid(r)
		return msgSpec{body: body, receives: 1,
			attrs:   map[string]string{"RequestID": id, "ErrorMessage": msg},
			numbers: map[string]string{"ErrorCode": "200"}}
	}
	// consumer is a consumer's own error attributes.
	consumer := func(body, code, msg string) msgSpec {
		return msgSpec{body: body, receives: 4, attrs: map[string]string{"ErrorCode": code, "ErrorMessage": msg}}
	}

	// A reservation service's bulk re-sync in a burst: every write is a
	// conditional put that the item's state rejects.
	put("dynamo-conditional.jsonl",
		spread(r, 90, at("2024-03-12T02:00:00Z"), at("2024-03-12T02:25:00Z"), func(i int) msgSpec {
			return lambdaDLQ(reservation(r, i), "ConditionalCheckFailedException: The conditional request failed")
		}),
		spread(r, 30, at("2024-03-12T02:01:00Z"), at("2024-03-12T02:24:00Z"), func(i int) msgSpec {
			return lambdaDLQ(reservation(r, 500+i), "TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]")
		}))

	// PostgreSQL in German (a deploy changed a column's type: class 42)
	// in a burst, and in Spanish (a NOT NULL column, class 23) in a trickle.
	put("pg-foreign.jsonl",
		spread(r, 150, at("2024-03-12T22:04:00Z"), at("2024-03-12T22:50:00Z"), func(i int) msgSpec {
			return consumer(order(r, 20000+i, 1), "PSQLException", fmt.Sprintf("FEHLER: Spalte »total« hat Typ integer, aber der Ausdruck hat Typ text bei Zeichen %d (SQLSTATE 42804)", 40+r.Intn(30)))
		}),
		spread(r, 30, at("2024-03-09T00:00:00Z"), at("2024-03-12T00:00:00Z"), func(i int) msgSpec {
			return consumer(order(r, 21000+i, 1), "PSQLException", fmt.Sprintf("ERROR: el valor nulo en la columna «customer_id» de la relación «orders» viola la restricción de no nulo; la fila que falla contiene (%d, null) (SQLSTATE 23502)", 21000+i))
		}))

	// One error class, two status classes: the pricing API down (503) in
	// a burst, and quotes it refuses (422) over days.
	put("status-classes.jsonl",
		spread(r, 110, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:40:00Z"), func(i int) msgSpec {
			return consumer(order(r, 30000+i, 1), "PricingClientError", fmt.Sprintf("PricingClientError: POST /v2/quotes returned status 503 for quote q-%05d", r.Intn(99999)))
		}),
		spread(r, 35, at("2024-03-09T00:00:00Z"), at("2024-03-12T00:00:00Z"), func(i int) msgSpec {
			return consumer(order(r, 31000+i, 1), "PricingClientError", fmt.Sprintf("PricingClientError: POST /v2/quotes returned status 422 for quote q-%05d", r.Intn(99999)))
		}))

	// Timeouts of a function with a 15 s timeout: only the huge orders (a
	// B2B customer's 300–900 lines) over two days, beside ordinary
	// orders failing on missing SKUs; and an outage's burst over ordinary
	// orders.
	put("timeouts-outliers.jsonl",
		spread(r, 24, at("2024-03-10T08:00:00Z"), at("2024-03-12T08:00:00Z"), func(i int) msgSpec {
			return lambdaDLQ(bigOrder(r, 40000+i, 300+r.Intn(600)), fmt.Sprintf("%s %s Task timed out after 15.02 seconds", at("2024-03-10T08:00:00Z").Add(time.Duration(i)*2*time.Hour).Format("2006-01-02T15:04:05.000Z"), uuid(r)))
		}),
		spread(r, 60, at("2024-03-10T08:00:00Z"), at("2024-03-12T08:00:00Z"), func(i int) msgSpec {
			return lambdaDLQ(order(r, 41000+i, 1), fmt.Sprintf("SkuNotFound: SKU-%d", 9000+r.Intn(900)))
		}))
	put("timeouts-outage.jsonl", spread(r, 150, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:31:00Z"), func(i int) msgSpec {
		return lambdaDLQ(order(r, 42000+i, 1), fmt.Sprintf("2024-03-12T14:02:06.010Z %s Task timed out after 15.02 seconds", uuid(r)))
	}))

	// An import function (15 min timeout) gets a pointer to a CSV and its
	// row count: the messages are all small; only the imports that declare
	// hundreds of thousands of rows time out.
	put("imports-baseline.jsonl", spread(r, 200, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"), func(i int) msgSpec {
		return msgSpec{body: importJob(i, 50+r.Intn(4000)), receives: 1}
	}))
	put("timeouts-declared.jsonl", spread(r, 15, at("2024-03-10T08:00:00Z"), at("2024-03-12T08:00:00Z"), func(i int) msgSpec {
		return lambdaDLQ(importJob(1000+i, 200000+r.Intn(700000)), fmt.Sprintf("2024-03-10T08:15:00.000Z %s Task timed out after 900.00 seconds", uuid(r)))
	}))

	// Decode failures worded as the runtimes word them: Go's
	// encoding/json behind an "order rejected" and Python's json behind a
	// ValueError; the old phrase table read "invalid character" as
	// validation.
	put("decode-odd.jsonl",
		spread(r, 70, at("2024-03-12T10:00:00Z"), at("2024-03-12T10:40:00Z"), func(i int) msgSpec {
			return consumer(wrapped(r, i), "OrderRejected", "OrderRejected: order payload rejected: invalid character 'N' looking for beginning of value")
		}),
		spread(r, 25, at("2024-03-12T10:05:00Z"), at("2024-03-12T10:35:00Z"), func(i int) msgSpec {
			return consumer(wrapped(r, 100+i), "ValueError", "ValueError: could not read order: Expecting value: line 1 column 1 (char 0)")
		}))

	// Express orders call the express carrier, whose API was down: every
	// message shares delivery_option=express, a value the baseline's
	// standard and pickup orders never have — not the contract.
	put("delivery-baseline.jsonl", spread(r, 200, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"), func(i int) msgSpec {
		return msgSpec{body: delivery(r, 50000+i, []string{"standard", "standard", "pickup"}[r.Intn(3)]), receives: 1}
	}))
	put("unrelated-field.jsonl", spread(r, 90, at("2024-03-12T14:02:00Z"), at("2024-03-12T14:35:00Z"), func(i int) msgSpec {
		return consumer(delivery(r, 51000+i, "express"), "ShippingQuoteError", "ShippingQuoteError: carrier API returned HTTP 503 Service Unavailable")
	}))
	// A new producer host took over the night the orders failed validation
	// one by one: every message names it, a value the baseline never has
	// — a field about delivery, not the format; the errors decide (data).
	put("producer-baseline.jsonl", spread(r, 200, at("2024-03-03T08:00:00Z"), at("2024-03-10T21:59:00Z"), func(i int) msgSpec {
		return msgSpec{body: withProducer(r, 70000+i, []string{"orders-api-a", "orders-api-b"}[r.Intn(2)]), receives: 1}
	}))
	put("producer-drift.jsonl", spread(r, 40, at("2024-03-09T00:00:00Z"), at("2024-03-12T00:00:00Z"), func(i int) msgSpec {
		return consumer(withProducer(r, 71000+i, "orders-api-c"), "ValidationError", fmt.Sprintf("ValidationError: postcode %05d is not deliverable", 10000+r.Intn(89999)))
	}))
	return files
}

// withProducer is an order stamped with the host that produced it.
func withProducer(r *rand.Rand, i int, host string) string {
	b, _ := json.Marshal(map[string]any{"order_id": fmt.Sprintf("ord-%06d", i), "version": 1, "producer_host": host,
		"postcode": fmt.Sprintf("%05d", 10000+r.Intn(89999)), "total": float64(500+r.Intn(20000)) / 100})
	return string(b)
}

// reservation is a booking event a reservation service writes to DynamoDB.
func reservation(r *rand.Rand, i int) string {
	b, _ := json.Marshal(map[string]any{"reservation_id": fmt.Sprintf("res-%06d", i), "room": fmt.Sprintf("R%03d", 100+r.Intn(300)),
		"night": fmt.Sprintf("2024-04-%02d", 1+r.Intn(28)), "guest": fmt.Sprintf("G-%05d", r.Intn(90000)), "expected_version": 1 + r.Intn(4)})
	return string(b)
}

// bigOrder is an order with n lines.
func bigOrder(r *rand.Rand, i, n int) string {
	items := make([]map[string]any, n)
	for k := range items {
		items[k] = map[string]any{"sku": fmt.Sprintf("SKU-%d", 1000+r.Intn(500)), "qty": 1 + r.Intn(40)}
	}
	b, _ := json.Marshal(map[string]any{"order_id": fmt.Sprintf("ord-%06d", i), "version": 1, "customer": "acme-b2b",
		"items": items, "total": float64(50000+r.Intn(900000)) / 100})
	return string(b)
}

// wrapped is a message whose order travels as an escaped JSON string the
// consumer decodes; these carry a broken one.
func wrapped(r *rand.Rand, i int) string {
	b, _ := json.Marshal(map[string]any{"event_id": uuid(r), "kind": "OrderPlaced", "order": fmt.Sprintf("NaN{\"order_id\":\"ord-%06d\"", 60000+i)})
	return string(b)
}

// delivery is an order with its delivery option.
func delivery(r *rand.Rand, i int, option string) string {
	b, _ := json.Marshal(map[string]any{"order_id": fmt.Sprintf("ord-%06d", i), "version": 1, "delivery_option": option,
		"postcode": fmt.Sprintf("%05d", 10000+r.Intn(89999)), "parcels": 1 + r.Intn(3)})
	return string(b)
}

// importJob is a bulk import request: a pointer to a CSV file and how many
// rows it holds.
func importJob(i, rows int) string {
	b, _ := json.Marshal(map[string]any{"job_id": fmt.Sprintf("imp-%05d", i), "file": fmt.Sprintf("s3://imports/2024/03/batch-%05d.csv", i), "row_count": rows, "tenant": "t-17"})
	return string(b)
}
