package classify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/envelope"
)

// verdictView is what a drift scenario checks of a group.
type verdictView struct {
	Verdict Verdict
	Count   int
}

// fetchFrom is a fake Options.Fetch: every object holds body, up to limit
// reads, then skipped.
func fetchFrom(body string, limit int) func(envelope.Pointer) envelope.Fetched {
	n := 0
	return func(envelope.Pointer) envelope.Fetched {
		if n >= limit {
			return envelope.Fetched{Status: envelope.FetchSkipped, Size: -1}
		}
		n++
		return envelope.Fetched{Status: envelope.FetchRead, Body: []byte(body), Size: int64(len(body))}
	}
}

func TestDriftScenarios(t *testing.T) {
	changed := `{"payment_id":"pay-1","amount":"12.50","currency":"EUR","status":"PAID","method":"card","items":{"count":2},"customer":{"id":"C-00001","country":"DE"}}`
	same := `{"payment_id":"pay-1","amount":12.5,"currency":"EUR","status":"PAID","method":"card","items":[{"sku":"SKU-1001","qty":2}],"customer":{"id":"C-00001","country":"DE"}}`
	tests := []struct {
		name, file, baseline string
		fetch                func(envelope.Pointer) envelope.Fetched
		verdict              Verdict
		groups               []verdictView
		evidence             []string // substrings some group's evidence holds
		drift                []string // Field/Kind/Value of g1's contract drifts
	}{
		{"type change, no version field", "type-change.jsonl", "payments-baseline.jsonl", nil, VerdictPoison,
			[]verdictView{{VerdictPoison, 170}},
			[]string{"amount: number in 100 of 100 baseline messages, string in 170 of 170 here: a contract change",
				"items: array in 100 of 100 baseline messages, object in 170 of 170 here: a contract change", "misleading here: the content is the proof"},
			[]string{"amount type string", "items type object"}},
		{"new enum value, zod issues in ErrorMessage", "enum-new-value.jsonl", "refunds-baseline.jsonl", nil, VerdictPoison,
			[]verdictView{{VerdictPoison, 140}},
			[]string{"status=PARTIALLY_REFUNDED in 140 of 140 here, in 0 of 400 baseline messages, which hold 5 values (PAID, ",
				"140 of 140 fail validation on the same value \"PARTIALLY_REFUNDED\"", `the error says "validation"`, "ZodError: 1 validation issue: invalid_enum_value at status"},
			[]string{"status value PARTIALLY_REFUNDED"}},
		{"validation on values that differ", "validation-data.jsonl", "refunds-baseline.jsonl", nil, VerdictData,
			[]verdictView{{VerdictData, 60}},
			[]string{"the rejected values differ from message to message (60 distinct in 60 messages): bad data", "content matches the baseline"}, nil},
		{"cloudevents: new dataschema, data changed type", "ce-schema.jsonl", "ce-baseline.jsonl", nil, VerdictPoison,
			[]verdictView{{VerdictPoison, 120}},
			[]string{"dataschema=https://schemas.example.com/payment/2, absent from the baseline's 200 CloudEvents", "amount: number in 200 of 200 baseline messages, string in 120 of 120 here"},
			[]string{"amount type string", "items type object"}},
		{"cloudevents: outage with the known schema", "ce-outage.jsonl", "ce-baseline.jsonl", nil, VerdictTransient,
			[]verdictView{{VerdictTransient, 90}},
			[]string{"content matches the baseline", "the error names HTTP status 503 (class 5xx: the server failed — retryable) — transient"}, nil},
		{"cloudevents binary: new enum value", "ce-binary-enum.jsonl", "ce-binary-baseline.jsonl", nil, VerdictPoison,
			[]verdictView{{VerdictPoison, 75}},
			[]string{"status=CHARGEBACK in 75 of 75 here, in 0 of 200 baseline messages", "the time pattern does not matter here"},
			[]string{"status value CHARGEBACK"}},
		{"step functions: timeouts over unknown customers", "sfn-mixed.jsonl", "payments-baseline.jsonl", nil, VerdictMixed,
			[]verdictView{{VerdictTransient, 90}, {VerdictData, 30}},
			[]string{`the same error on all 90: "States.Timeout"`, "CustomerNotFound: customer C-<n> not found"}, nil},
		{"wrapper error fields, multi-line", "wrapper-errors.jsonl", "payments-baseline.jsonl", nil, VerdictMixed,
			[]verdictView{{VerdictTransient, 100}, {VerdictPoison, 40}},
			[]string{"the error names errno ECONNREFUSED", "the error names exception type com.fasterxml.jackson.databind.exc.MismatchedInputException (Java Jackson"}, nil},
		{"offloaded: outage, baseline of pointers", "offload-outage.jsonl", "offload-baseline.jsonl", nil, VerdictTransient,
			[]verdictView{{VerdictTransient, 140}},
			[]string{"all 140 are offloaded payload pointers (bucket payments-large), as are 200 of the baseline's 300 messages", "--fetch-payloads N"}, nil},
		{"offloaded: pointers alone prove nothing", "offload-drift.jsonl", "offload-baseline.jsonl", nil, VerdictUnknown,
			[]verdictView{{VerdictUnknown, 80}}, []string{"pointer compared with pointer, no drift", "a burst: looks transient — not proven", "classify again with --fetch-payloads N"}, nil},
		{"offloaded: fetched payloads changed type", "offload-drift.jsonl", "offload-baseline.jsonl", fetchFrom(changed, 20), VerdictPoison,
			[]verdictView{{VerdictPoison, 80}},
			[]string{"read 20 of 80 offloaded payloads from S3 (--fetch-payloads): 60 skipped", "amount: number in 100 of 100 baseline messages, string in 20 of 20 fetched from S3: a contract change"},
			[]string{"amount type string", "items type object"}},
		{"offloaded: fetched payloads as the baseline's", "offload-outage.jsonl", "offload-baseline.jsonl", fetchFrom(same, 10), VerdictTransient,
			[]verdictView{{VerdictTransient, 140}},
			[]string{"the 10 payloads read from S3 match the baseline's field profile (100 messages)"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := runFixture(t, tt.file, Options{Baseline: baselineFile(t, tt.baseline, nil), Queue: "payments-dlq", Fetch: tt.fetch})
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
				t.Errorf("groups (-want +got):\n%s", diff)
			}
			for _, want := range tt.evidence {
				if !strings.Contains(all, want) {
					t.Errorf("no evidence says %q; evidence:\n%s", want, all)
				}
			}
			var drift []string
			for _, d := range c.Groups[0].Drift {
				if d.Contract {
					drift = append(drift, d.Field+" "+d.Kind+" "+d.Value)
				}
			}
			if diff := cmp.Diff(tt.drift, drift); diff != "" {
				t.Errorf("g1 contract drifts (-want +got):\n%s", diff)
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
