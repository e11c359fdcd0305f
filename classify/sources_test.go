package classify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestErrorSourceScenarios: issue 39's DLQs — the error read wherever its
// sender put it and judged by what it means; each names the evidence line
// that decided.
func TestErrorSourceScenarios(t *testing.T) {
	tests := []struct {
		name, file, baseline string
		verdict              Verdict
		groups               []verdictView
		evidence             []string // substrings some group's evidence holds
		action               string   // a substring of g1's action
	}{
		{"masstransit: a burst of payment declines", "masstransit-declines.jsonl", "masstransit-baseline.jsonl", VerdictData,
			[]verdictView{{VerdictData, 70}, {VerdictData, 30}, {VerdictData, 20}},
			[]string{`the error in the MT-Fault-* attributes (MassTransit) says "insufficient funds": a payment decline is permanent for this customer's card`,
				`the error in the MT-Fault-* attributes (MassTransit) says "card has expired"`, `says "card was declined"`,
				"a clear error outranks the arrival pattern (a burst alone would suggest transient)", "content matches the baseline's 200 messages"},
			"correct the data at source"},
		{"nservicebus: a partner API throttled (429), base64 bodies", "nservicebus-throttled.jsonl", "nservicebus-baseline.jsonl", VerdictTransient,
			[]verdictView{{VerdictTransient, 90}},
			[]string{"the error in the TransportMessage's NServiceBus.ExceptionInfo.* headers (NServiceBus) names HTTP status 429 (Too Many Requests: retryable, with more wait) — transient",
				"content matches the baseline's 200 messages (version=1)"},
			"redrive slower than the consumer was fed"},
		{"celery: a TypeError in the handler of a timeout goes with the timeouts", "celery-secondary.jsonl", "celery-baseline.jsonl", VerdictTransient,
			[]verdictView{{VerdictTransient, 150}},
			[]string{"the error in the payload's exc_type and exc_message (Celery) names exception type requests.exceptions.ReadTimeout", "some with a second error raised around the first",
				`37 of 150 show a second error raised around the first ("TypeError: 'NoneType' object is not subscriptable"): the first — the root cause — decided`},
			"once the dependency behind"},
		{"sidekiq: a new location the table lacks (foreign key)", "sidekiq-new-location.jsonl", "sidekiq-baseline.jsonl", VerdictData,
			[]verdictView{{VerdictData, 55}},
			[]string{`the error in the payload's error_class and error_message (Sidekiq) names SQLSTATE 23503 (23503 foreign key violation: a row the message refers to does not exist) — data`,
				"args[].location_id=LOC-MUC-4 in 55 of 55 here, in 0 of 300 baseline messages, which hold 3 values (",
				`: a new location value the data lacks, not a new schema — the error names a missing row ("SQLSTATE 23503"): fix or import the rows, then redrive`},
			"correct the data at source"},
		{"spring kafka: amount became an object", "spring-dlt.jsonl", "payments-baseline.jsonl", VerdictPoison,
			[]verdictView{{VerdictPoison, 80}},
			[]string{"amount: number in 100 of 100 baseline messages, object in 80 of 80 here: a contract change",
				"the error names exception type com.fasterxml.jackson.databind.exc.MismatchedInputException (Java Jackson: the consumer cannot decode the message: the code and the message's format disagree) — it agrees with the content"},
			"fix the consumer"},
		{"symfony: customers gone before their invoices", "symfony-not-found.jsonl", "symfony-baseline.jsonl", VerdictData,
			[]verdictView{{VerdictData, 45}},
			[]string{"the error in the ErrorDetailsStamp (Symfony Messenger) names exception type EntityNotFoundException", "different error texts naming different entities"},
			"correct the data at source"},
		{"laravel: the label service answered 503", "laravel-outage.jsonl", "laravel-baseline.jsonl", VerdictTransient,
			[]verdictView{{VerdictTransient, 60}},
			[]string{"the error in the payload's exception field (a Laravel failed job) names HTTP status 503", "content matches the baseline's 200 messages"},
			"once the dependency behind"},
		{"jms and a by-name attribute", "jms-fallback.jsonl", "deploy-baseline.jsonl", VerdictMixed,
			[]verdictView{{VerdictData, 50}, {VerdictTransient, 30}},
			[]string{"the error in the dlqDeliveryFailureCause attribute (JMS, ActiveMQ) names exception type org.hibernate.exception.ConstraintViolationException (Java Hibernate / Bean Validation: the data breaks a rule of the database) — data",
				"the error in the lastFailureReason attribute (by its name) names HTTP status 502"},
			"correct the data at source"},
		{"lambda destination without a responsePayload: EventAgeExceeded", "destination-expired.jsonl", "destination-baseline.jsonl", VerdictTransient,
			[]verdictView{{VerdictTransient, 150}},
			[]string{`the error says "event age exceeded": the event waited past its maximum age`, `the same error on all 150: "EventAgeExceeded"`},
			"redrive slower than the consumer was fed"},
		{"kinesis on-failure records: no records inside", "kinesis-failures.jsonl", "kinesis-baseline.jsonl", VerdictTransient,
			[]verdictView{{VerdictTransient, 24}},
			[]string{"24 messages are on-failure records of the kinesis stream clickstream (the first: shard shardId-000000000000",
				`the error in the stream on-failure record's condition says "maximum record age"`},
			"read the records again from arn:aws:kinesis:us-east-1:123456789012:stream/clickstream (shard shardId-000000000000"},
		{"iot rule errors: throttled, and a string temperature in the decoded payload", "iot-errors.jsonl", "iot-baseline.jsonl", VerdictMixed,
			[]verdictView{{VerdictTransient, 80}, {VerdictPoison, 25}},
			[]string{"the error in the IoT rule error action's failures names AWS error code ProvisionedThroughputExceededException", "temperature_c: number in 200 of 200 baseline messages, string in 25 of 25 here: a contract change"},
			"redrive slower than the consumer was fed"},
		{"sns notifications with the publisher's error attributes inside", "sns-republished.jsonl", "sns-baseline.jsonl", VerdictData,
			[]verdictView{{VerdictData, 48}},
			[]string{`the error says "out of stock": the message's values fail the consumer's validation: correct the data — data`, "different error texts naming different entities"},
			"correct the data at source"},
		{"s3 keys URL-encoded: NoSuchKey, but the pattern is the proof", "s3-encoded.jsonl", "s3-baseline.jsonl", VerdictPoison,
			[]verdictView{{VerdictPoison, 40}},
			[]string{"Records[].s3.object.key: URL-encoded ('+' or %XX) in 40 of 40 here, in 0 of 200 baseline messages (200 with a string there) — a value pattern the baseline never has (S3 sends object keys URL-encoded",
				"the error names AWS error code NoSuchKey (S3: the object the message names does not exist), data, but the content is the proof: poison whatever the error says"},
			"fix the consumer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := runFixture(t, tt.file, Options{Baseline: baselineFile(t, tt.baseline, nil), Queue: "orders-dlq"})
			var got []verdictView
			var evidence []string
			for _, g := range c.Groups {
				got = append(got, verdictView{g.Verdict, g.Count})
				evidence = append(evidence, g.Evidence...)
			}
			all := strings.Join(evidence, "\n")
			if c.Verdict != tt.verdict {
				t.Errorf("verdict %s, want %s\nevidence:\n%s", c.Verdict, tt.verdict, all)
			}
			if diff := cmp.Diff(tt.groups, got); diff != "" {
				t.Errorf("groups (-want +got):\n%s\nevidence:\n%s", diff, all)
			}
			for _, want := range tt.evidence {
				if !strings.Contains(all, want) {
					t.Errorf("no evidence says %q; evidence:\n%s", want, all)
				}
			}
			if len(c.Groups) > 0 && !strings.Contains(c.Groups[0].Action, tt.action) {
				t.Errorf("g1's action %q does not say %q", c.Groups[0].Action, tt.action)
			}
			// GroupOf puts every message in the group classify counted it in.
			msgs := readAll(t, tt.file)
			counts := map[string]int{}
			for i := range msgs {
				if g, ok := c.GroupOf(&msgs[i], nil); ok {
					counts[g.ID]++
				}
			}
			for _, g := range c.Groups {
				if counts[g.ID] != g.Count {
					t.Errorf("GroupOf puts %d in %s, classify counted %d", counts[g.ID], g.ID, g.Count)
				}
			}
		})
	}
}
