package classify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/signature"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// TestRealisticScenarios: the DLQs issue 45 found misread, each decided by
// a typed fact (or a comparison) rather than its timing or its words.
func TestRealisticScenarios(t *testing.T) {
	tests := []struct {
		name, file, baseline string
		verdict              Verdict
		groups               []verdictView
		decidedBy            []string // each group's DecidedBy
		evidence             []string // substrings some group's evidence holds
	}{
		{"dynamodb conditional check: data, not transient", "dynamo-conditional.jsonl", "", VerdictData,
			[]verdictView{{VerdictData, 90}, {VerdictData, 30}},
			[]string{"AWS error code ConditionalCheckFailedException", "AWS error code TransactionCanceledException [ConditionalCheckFailed]"},
			[]string{"the error names AWS error code ConditionalCheckFailedException (DynamoDB: the item's condition is false"}},
		{"postgresql in german and spanish: the SQLSTATE decides", "pg-foreign.jsonl", "", VerdictMixed,
			[]verdictView{{VerdictPoison, 150}, {VerdictData, 30}},
			[]string{"SQLSTATE 42804", "SQLSTATE 23502"},
			[]string{"SQLSTATE 42804 (class 42: the code and the schema disagree) — poison", "SQLSTATE 23502 (class 23: integrity constraint violation — the data breaks a rule) — data"}},
		{"two status classes under one error class", "status-classes.jsonl", "", VerdictMixed,
			[]verdictView{{VerdictTransient, 110}, {VerdictData, 35}},
			[]string{"HTTP status 503", "HTTP status 422"},
			[]string{"HTTP status 503 (class 5xx: the server failed — retryable) — transient", "HTTP status 422 (class 4xx"}},
		{"timeouts on outliers only, against the DLQ's other messages", "timeouts-outliers.jsonl", "", VerdictMixed,
			[]verdictView{{VerdictData, 60}, {VerdictPoison, 24}},
			[]string{"error text: \"not found\"", "Lambda errorType Sandbox.Timedout"},
			[]string{"only outliers time out: the 24 payloads are a median of 8 KiB–16 KiB, against a median of 64 B–128 B (90% under 128 B) for the DLQ's other messages", "(the function ran into its configured timeout of 15 s) — poison"}},
		{"timeouts on outliers only, against the baseline", "timeouts-outliers.jsonl", "deploy-baseline.jsonl", VerdictMixed,
			[]verdictView{{VerdictData, 60}, {VerdictPoison, 24}},
			[]string{"error text: \"not found\"", "Lambda errorType Sandbox.Timedout"},
			[]string{"only outliers time out: the 24 payloads are a median of 8 KiB–16 KiB", "for the baseline — the message is the cause"}},
		{"timeouts in a burst over ordinary messages", "timeouts-outage.jsonl", "deploy-baseline.jsonl", VerdictTransient,
			[]verdictView{{VerdictTransient, 150}},
			[]string{"Lambda errorType Sandbox.Timedout"},
			[]string{"the 150 that timed out are ordinary messages", "the dependency, not the message"}},
		{"timeouts on the messages that declare the most rows", "timeouts-declared.jsonl", "imports-baseline.jsonl", VerdictPoison,
			[]verdictView{{VerdictPoison, 15}},
			[]string{"Lambda errorType Sandbox.Timedout"},
			[]string{"only outliers time out: the 15 declare a median of", "(row_count), against a median of", "for the baseline", "configured timeout of 900 s"}},
		{"decode failures in the runtimes' own words", "decode-odd.jsonl", "", VerdictPoison,
			[]verdictView{{VerdictPoison, 70}, {VerdictPoison, 25}},
			[]string{"exception type *json.SyntaxError", "exception type JSONDecodeError"},
			[]string{"the error names exception type *json.SyntaxError (Go encoding/json"}},
		{"a shared value of an unrelated field in an outage", "unrelated-field.jsonl", "delivery-baseline.jsonl", VerdictTransient,
			[]verdictView{{VerdictTransient, 90}},
			[]string{"HTTP status 503"},
			[]string{"delivery_option=express", "not a contract change — the error names HTTP status 503"}},
		{"a new producer host is no contract change", "producer-drift.jsonl", "producer-baseline.jsonl", VerdictData,
			[]verdictView{{VerdictData, 40}},
			[]string{"error text: \"validation\""},
			[]string{"producer_host=orders-api-c", "not a contract change — a field about the message's delivery"}},
		{"no error, no logs, no baseline, no --expect: unknown", "deploy.jsonl", "", VerdictUnknown,
			[]verdictView{{VerdictUnknown, 340}},
			[]string{""},
			[]string{"a burst: looks transient — not proven", "mfdlq logs --queue orders-dlq --log-group LOG_GROUP"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Queue: "orders-dlq"}
			if tt.baseline != "" {
				opts.Baseline = baselineFile(t, tt.baseline, nil)
			}
			c := runFixture(t, tt.file, opts)
			var got []verdictView
			var decided, evidence []string
			for _, g := range c.Groups {
				got = append(got, verdictView{g.Verdict, g.Count})
				decided = append(decided, g.DecidedBy)
				evidence = append(evidence, g.Evidence...)
			}
			all := strings.Join(evidence, "\n")
			if c.Verdict != tt.verdict {
				t.Errorf("verdict %s, want %s\nevidence:\n%s", c.Verdict, tt.verdict, all)
			}
			if diff := cmp.Diff(tt.groups, got); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.decidedBy, decided); diff != "" {
				t.Errorf("decided_by (-want +got):\n%s", diff)
			}
			for _, want := range tt.evidence {
				if !strings.Contains(all, want) {
					t.Errorf("no evidence says %q; evidence:\n%s", want, all)
				}
			}
			for _, g := range c.Groups {
				if g.Verdict == VerdictUnknown && strings.Contains(g.Action, "mfdlq redrive") {
					t.Errorf("an unknown group's action offers a redrive: %q", g.Action)
				}
			}
		})
	}
}

// TestCodesSplitGroups: texts that differ only in a decisive code are two
// groups (signature version 2), and a classification made with version 1
// (no key_version) still finds its groups for redrive --group.
func TestCodesSplitGroups(t *testing.T) {
	msgs := readAll(t, "status-classes.jsonl")
	c := runFixture(t, "status-classes.jsonl", Options{})
	if c.KeyVersion != signature.Version || len(c.Groups) != 2 {
		t.Fatalf("key_version %d, %d groups: want %d, 2", c.KeyVersion, len(c.Groups), signature.Version)
	}
	old := &Classification{Groups: []Group{{ID: "g1", Key: KeyOf(&msgs[0], nil).Fingerprint + " | PricingClientError: POST /v2/quotes returned status <n> for quote q-<n>"}}}
	for _, m := range []*sqsjson.Message{&msgs[0], &msgs[len(msgs)-1]} {
		if g, ok := old.GroupOf(m, nil); !ok || g.ID != "g1" {
			t.Errorf("an old classification's GroupOf(%s) = %v, %v: want g1 by version 1's key", m.MessageId, g, ok)
		}
		if g, ok := c.GroupOf(m, nil); !ok || !strings.Contains(g.Key, "status 503") && !strings.Contains(g.Key, "status 422") {
			t.Errorf("GroupOf(%s) = %v, %v: want the group of its status", m.MessageId, g, ok)
		}
	}
}
