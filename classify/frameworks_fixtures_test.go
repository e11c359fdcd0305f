package classify

import (
	"encoding/json"
	"fmt"
	"math/rand"
)

// frameworkFixtures are DLQs as three common consumers leave them, each
// with several failures at once: a Spring consumer whose error handler
// republishes with Spring's x-exception-* headers (Jackson, Hibernate over
// PostgreSQL, RestTemplate), a Python Lambda (boto3 on DynamoDB, psycopg2)
// whose asynchronous invocations land in its DLQ with Lambda's ErrorMessage,
// and a Node consumer of an SNS topic calling an HTTP API with axios, which
// records errorType/errorMessage itself; a Node worker on MongoDB; a .NET
// worker with a Polly breaker, Redis and Npgsql.
func frameworkFixtures() map[string][]byte {
	r := rand.New(rand.NewSource(4545))
	at := mustTime
	files := fixtureSet{}
	put := files.put

	// spring is what a RepublishMessageRecoverer-style handler records.
	spring := func(body, fqcn, msg, trace string) msgSpec {
		return msgSpec{body: body, receives: 1, attrs: map[string]string{
			"x-exception-fqcn": fqcn, "x-exception-message": msg, "x-exception-stacktrace": trace}}
	}
	put("spring-invoices.jsonl",
		// A deploy of the producer writes amounts with a decimal comma.
		spread(r, 120, at("2024-05-14T03:10:00Z"), at("2024-05-14T03:26:00Z"), func(i int) msgSpec {
			msg := fmt.Sprintf("Cannot deserialize value of type `java.math.BigDecimal` from String \"%d,%02d\": not a valid representation\n at [Source: (String)\"{\"invoiceId\":\"INV-%06d\"...\"; line: 1, column: 87] (through reference chain: com.acme.billing.InvoiceEvent[\"amount\"])", 10+r.Intn(900), r.Intn(100), 300000+i)
			return spring(invoice(r, 300000+i, true), "org.springframework.messaging.converter.MessageConversionException",
				"Cannot convert from [java.lang.String] to [com.acme.billing.InvoiceEvent]",
				"org.springframework.messaging.converter.MessageConversionException: Cannot convert from [java.lang.String] to [com.acme.billing.InvoiceEvent]\n\tat org.springframework.messaging.converter.MappingJackson2MessageConverter.convertFromInternal(MappingJackson2MessageConverter.java:235)\nCaused by: com.fasterxml.jackson.databind.exc.InvalidFormatException: "+msg+"\n\tat com.fasterxml.jackson.databind.exc.InvalidFormatException.from(InvalidFormatException.java:67)")
		}),
		// Invoices of customers the customer service has not synced yet.
		spread(r, 45, at("2024-05-12T08:00:00Z"), at("2024-05-14T07:00:00Z"), func(i int) msgSpec {
			cust := 88000 + r.Intn(900)
			return spring(invoice(r, 310000+i, false), "org.springframework.dao.DataIntegrityViolationException",
				"could not execute statement; SQL [n/a]; constraint [invoice_customer_fk]",
				fmt.Sprintf("org.springframework.dao.DataIntegrityViolationException: could not execute statement; SQL [n/a]; constraint [invoice_customer_fk]\n\tat org.springframework.orm.jpa.vendor.HibernateJpaDialect.convertHibernateAccessException(HibernateJpaDialect.java:276)\nCaused by: org.hibernate.exception.ConstraintViolationException: could not execute statement\n\tat org.hibernate.exception.internal.SQLStateConversionDelegate.convert(SQLStateConversionDelegate.java:59)\nCaused by: org.postgresql.util.PSQLException: ERROR: insert or update on table \"invoice\" violates foreign key constraint \"invoice_customer_fk\"\n  Detail: Key (customer_id)=(%d) is not present in table \"customer\".\n\tat org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse(QueryExecutorImpl.java:2676)", cust))
		}),
		// The tax service hung for a quarter of an hour.
		spread(r, 30, at("2024-05-13T16:40:00Z"), at("2024-05-13T16:55:00Z"), func(i int) msgSpec {
			return spring(invoice(r, 320000+i, false), "org.springframework.web.client.ResourceAccessException",
				"I/O error on POST request for \"https://tax.internal.acme.com/v1/rates\": Read timed out",
				"org.springframework.web.client.ResourceAccessException: I/O error on POST request for \"https://tax.internal.acme.com/v1/rates\": Read timed out\n\tat org.springframework.web.client.RestTemplate.doExecute(RestTemplate.java:791)\nCaused by: java.net.SocketTimeoutException: Read timed out\n\tat java.base/sun.nio.ch.NioSocketImpl.timedFinishRead(NioSocketImpl.java:288)")
		}),
		// VAT ids the tax service refuses, one by one.
		spread(r, 20, at("2024-05-12T09:00:00Z"), at("2024-05-14T06:00:00Z"), func(i int) msgSpec {
			return spring(invoice(r, 330000+i, false), "org.springframework.web.client.HttpClientErrorException$UnprocessableEntity",
				fmt.Sprintf("422 Unprocessable Entity: \"{\"error\":\"invalid_vat_id\",\"detail\":\"VAT id DE%09d failed checksum\"}\"", r.Intn(999999999)),
				"org.springframework.web.client.HttpClientErrorException$UnprocessableEntity: 422 Unprocessable Entity\n\tat org.springframework.web.client.HttpClientErrorException.create(HttpClientErrorException.java:128)")
		}))

	// lambdaPy is a Python function's failed asynchronous invocation.
	lambdaPy := func(body, msg string) msgSpec {
		return msgSpec{body: body, receives: 1,
			attrs:   map[string]string{"RequestID": uuid(r), "ErrorMessage": msg},
			numbers: map[string]string{"ErrorCode": "200"}}
	}
	put("python-lambda.jsonl",
		// A flash sale throttled the stock table.
		spread(r, 80, at("2024-05-13T12:00:00Z"), at("2024-05-13T12:20:00Z"), func(i int) msgSpec {
			return lambdaPy(stockEvent(r, i), "An error occurred (ProvisionedThroughputExceededException) when calling the UpdateItem operation (reached max retries: 4): The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.")
		}),
		// Duplicated reservations: a conditional put refuses them.
		spread(r, 35, at("2024-05-11T00:00:00Z"), at("2024-05-13T23:00:00Z"), func(i int) msgSpec {
			return lambdaPy(stockEvent(r, 1000+i), "An error occurred (ConditionalCheckFailedException) when calling the PutItem operation: The conditional request failed")
		}),
		// The database ran out of connection slots during the same sale.
		spread(r, 50, at("2024-05-13T12:02:00Z"), at("2024-05-13T12:18:00Z"), func(i int) msgSpec {
			return lambdaPy(stockEvent(r, 2000+i), "connection to server at \"orders-db.cluster-c9abcdefgh.eu-west-1.rds.amazonaws.com\" (10.0.3.17), port 5432 failed: FATAL:  remaining connection slots are reserved for non-replication superuser connections\n")
		}),
		// A deploy of the function ahead of its migration.
		spread(r, 25, at("2024-05-13T18:30:00Z"), at("2024-05-13T18:41:00Z"), func(i int) msgSpec {
			return lambdaPy(stockEvent(r, 3000+i), "column \"reserved_until\" of relation \"reservations\" does not exist\nLINE 1: ...INSERT INTO reservations (sku, qty, order_id, reserved_until...\n                                                             ^\n")
		}))

	// node is what the Node consumer records before it sends a message to
	// the DLQ itself; a message without one was moved by SQS's redrive.
	node := func(body, typ, msg string) msgSpec {
		s := msgSpec{body: snsNotification(r, body), receives: 5}
		if typ != "" {
			s.attrs = map[string]string{"errorType": typ, "errorMessage": msg}
		}
		return s
	}
	put("node-shipping.jsonl",
		// The carrier's gateway failing for 40 minutes.
		spread(r, 100, at("2024-05-13T09:05:00Z"), at("2024-05-13T09:45:00Z"), func(i int) msgSpec {
			return node(shipment(r, i, true), "AxiosError", "AxiosError: Request failed with status code 502")
		}),
		// Labels for parcels the carrier does not know.
		spread(r, 40, at("2024-05-11T00:00:00Z"), at("2024-05-13T22:00:00Z"), func(i int) msgSpec {
			return node(shipment(r, 1000+i, true), "AxiosError", "AxiosError: Request failed with status code 404")
		}),
		// DNS failing inside the cluster for ten minutes.
		spread(r, 25, at("2024-05-13T20:00:00Z"), at("2024-05-13T20:10:00Z"), func(i int) msgSpec {
			return node(shipment(r, 2000+i, true), "Error", "Error: getaddrinfo EAI_AGAIN api.carrier.example")
		}),
		// Shipments whose address is missing.
		spread(r, 15, at("2024-05-11T06:00:00Z"), at("2024-05-13T06:00:00Z"), func(i int) msgSpec {
			return node(shipment(r, 3000+i, false), "TypeError", "TypeError: Cannot read properties of undefined (reading 'postcode')")
		}))

	// A Node payments worker on MongoDB records its error itself: charges
	// replayed with an idempotency key already stored, over days; the
	// replica set unreachable for half an hour; documents the collection's
	// validator refuses.
	mongo := func(body, msg string) msgSpec {
		return msgSpec{body: body, receives: 3, attrs: map[string]string{"error": msg}}
	}
	put("node-mongo.jsonl",
		spread(r, 60, at("2024-05-10T00:00:00Z"), at("2024-05-13T00:00:00Z"), func(i int) msgSpec {
			return mongo(charge(r, i), fmt.Sprintf(`MongoServerError: E11000 duplicate key error collection: shop.payments index: idempotency_key_1 dup key: { idempotency_key: "pay-%06d" }`, r.Intn(999999)))
		}),
		spread(r, 90, at("2024-05-13T04:10:00Z"), at("2024-05-13T04:40:00Z"), func(i int) msgSpec {
			return mongo(charge(r, 1000+i), "MongoServerSelectionError: connect ECONNREFUSED 10.0.7.12:27017")
		}),
		spread(r, 20, at("2024-05-11T00:00:00Z"), at("2024-05-13T00:00:00Z"), func(i int) msgSpec {
			return mongo(charge(r, 2000+i), "MongoServerError: Document failed validation")
		}))

	// A .NET fulfilment worker records ExceptionType/ExceptionMessage: its
	// Polly breaker open while the carrier API failed, the Redis primary's
	// failover, shipments already booked (Npgsql), and a date the code
	// cannot read.
	dotnet := func(body, typ, msg string) msgSpec {
		return msgSpec{body: body, receives: 5, attrs: map[string]string{"ExceptionType": typ, "ExceptionMessage": msg}}
	}
	put("dotnet-fulfilment.jsonl",
		spread(r, 70, at("2024-05-13T15:00:00Z"), at("2024-05-13T15:35:00Z"), func(i int) msgSpec {
			return dotnet(shipment(r, 5000+i, true), "Polly.CircuitBreaker.BrokenCircuitException", "The circuit is now open and is not allowing calls.")
		}),
		spread(r, 30, at("2024-05-13T02:14:00Z"), at("2024-05-13T02:16:00Z"), func(i int) msgSpec {
			return dotnet(shipment(r, 6000+i, true), "StackExchange.Redis.RedisServerException", "READONLY You can't write against a read only replica.")
		}),
		spread(r, 25, at("2024-05-10T00:00:00Z"), at("2024-05-13T00:00:00Z"), func(i int) msgSpec {
			return dotnet(shipment(r, 7000+i, true), "Npgsql.PostgresException", fmt.Sprintf("23505: duplicate key value violates unique constraint \"shipments_order_id_key\"\n\nDETAIL: Key (order_id)=(ord-%06d) already exists.", 500000+r.Intn(9000)))
		}),
		spread(r, 10, at("2024-05-12T00:00:00Z"), at("2024-05-13T00:00:00Z"), func(i int) msgSpec {
			return dotnet(shipment(r, 8000+i, true), "System.FormatException", "String '13/05/2024' was not recognized as a valid DateTime.")
		}))
	return files
}

// charge is a charge request with its idempotency key.
func charge(r *rand.Rand, i int) string {
	b, _ := json.Marshal(map[string]any{"payment_id": fmt.Sprintf("pay-%06d", i), "idempotency_key": fmt.Sprintf("idem-%08x", r.Uint32()),
		"amount_cents": 100 + r.Intn(50000), "currency": "EUR", "customer": fmt.Sprintf("cus_%06d", r.Intn(999999))})
	return string(b)
}

// invoice is a billing event; a broken producer writes its amount with a
// decimal comma.
func invoice(r *rand.Rand, i int, comma bool) string {
	amount := any(fmt.Sprintf("%d.%02d", 10+r.Intn(900), r.Intn(100)))
	if comma {
		amount = fmt.Sprintf("%d,%02d", 10+r.Intn(900), r.Intn(100))
	}
	b, _ := json.Marshal(map[string]any{"invoiceId": fmt.Sprintf("INV-%06d", i), "customerId": 88000 + r.Intn(900),
		"amount": amount, "currency": "EUR", "vatId": fmt.Sprintf("DE%09d", r.Intn(999999999)), "issuedAt": "2024-05-13T10:00:00Z"})
	return string(b)
}

// stockEvent is a stock reservation for an order line.
func stockEvent(r *rand.Rand, i int) string {
	b, _ := json.Marshal(map[string]any{"order_id": fmt.Sprintf("ord-%06d", 500000+i), "sku": fmt.Sprintf("SKU-%d", 1000+r.Intn(500)),
		"qty": 1 + r.Intn(5), "warehouse": []string{"MAD1", "BCN2"}[r.Intn(2)]})
	return string(b)
}

// shipment is a label request; without an address when addr is false.
func shipment(r *rand.Rand, i int, addr bool) string {
	s := map[string]any{"shipment_id": fmt.Sprintf("shp-%06d", 700000+i), "order_id": fmt.Sprintf("ord-%06d", 500000+r.Intn(9000)),
		"carrier": "dhl", "weight_g": 200 + r.Intn(5000)}
	if addr {
		s["address"] = map[string]any{"postcode": fmt.Sprintf("%05d", 10000+r.Intn(89999)), "country": "ES"}
	}
	b, _ := json.Marshal(s)
	return string(b)
}
