package classify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFrameworkScenarios: DLQs as a Spring consumer, a Python Lambda and a
// Node consumer leave them, several failures at once: each group decided by
// the fact its framework's error names. The Python Lambda's ErrorMessage is
// str() of psycopg2's exception, which prints PostgreSQL's message without
// its SQLSTATE: the server's wording decides (42703 poison, 53300
// transient), not the phrase "does not exist" (data) or the timing.
func TestFrameworkScenarios(t *testing.T) {
	tests := []struct {
		name, file string
		verdict    Verdict
		groups     []verdictView
		decidedBy  []string
		evidence   []string
	}{
		{"spring: jackson, hibernate over postgresql, resttemplate", "spring-invoices.jsonl", VerdictMixed,
			[]verdictView{{VerdictPoison, 120}, {VerdictData, 45}, {VerdictTransient, 30}, {VerdictData, 20}},
			[]string{"exception type com.fasterxml.jackson.databind.exc.InvalidFormatException", "PostgreSQL's wording of SQLSTATE 23503",
				"exception type java.net.SocketTimeoutException", "HTTP status 422"},
			[]string{"the 30 that timed out are ordinary messages"}},
		{"python lambda: boto3 on dynamodb, psycopg2", "python-lambda.jsonl", VerdictMixed,
			[]verdictView{{VerdictTransient, 80}, {VerdictTransient, 50}, {VerdictData, 35}, {VerdictPoison, 25}},
			[]string{"AWS error code ProvisionedThroughputExceededException", "PostgreSQL's wording of SQLSTATE 53300",
				"AWS error code ConditionalCheckFailedException", "PostgreSQL's wording of SQLSTATE 42703"},
			[]string{"the error names PostgreSQL's wording of SQLSTATE 42703 (class 42: the code and the schema disagree) — poison",
				"the error names PostgreSQL's wording of SQLSTATE 53300 (class 53: insufficient resources) — transient"}},
		{"node over sns: axios, dns, a missing address", "node-shipping.jsonl", VerdictMixed,
			[]verdictView{{VerdictTransient, 100}, {VerdictData, 40}, {VerdictTransient, 25}, {VerdictPoison, 15}},
			[]string{"HTTP status 502", "HTTP status 404", "errno EAI_AGAIN", "exception type TypeError"},
			nil},
		{"node on mongodb: a duplicate key is data, not a server error", "node-mongo.jsonl", VerdictMixed,
			[]verdictView{{VerdictTransient, 90}, {VerdictData, 60}, {VerdictData, 20}},
			[]string{"errno ECONNREFUSED", "MongoDB error DuplicateKey", "MongoDB error DocumentValidationFailure"},
			[]string{"the error names MongoDB error DuplicateKey (11000: a document with this unique key exists already — the data) — data"}},
		{".net: an open breaker and a redis failover are transient", "dotnet-fulfilment.jsonl", VerdictMixed,
			[]verdictView{{VerdictTransient, 70}, {VerdictTransient, 30}, {VerdictData, 25}, {VerdictPoison, 10}},
			[]string{"exception type Polly.CircuitBreaker.BrokenCircuitException", "Redis error READONLY", "SQLSTATE 23505", "exception type System.FormatException"},
			[]string{"a circuit breaker stopped calls to a dependency that was failing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := runFixture(t, tt.file, Options{Queue: "orders-dlq"})
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
		})
	}
}
