package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/envelope"
)

func baselineFile(t *testing.T, name string, d *envelope.Detector) *Baseline {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := LoadBaselineWith(f, d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// envelopeView is what an envelope scenario checks of a group.
type envelopeView struct {
	Verdict  Verdict
	Envelope string
	Count    int
}

func TestEnvelopeScenarios(t *testing.T) {
	tests := []struct {
		name, file, baseline string
		verdict              Verdict
		groups               []envelopeView
		fingerprint          string   // of the first group, as a prefix
		evidence             []string // substrings some group's evidence holds
	}{
		{"sns-wrapped v2 deploy", "sns-deploy.jsonl", "sns-baseline.jsonl", VerdictPoison,
			[]envelopeView{{VerdictPoison, "sns", 340}}, "sns: version=2 {currency,customer,items,order_id,total,version}",
			[]string{"version=2, absent from the baseline", "the content is the proof"}},
		{"sns-wrapped outage", "sns-outage.jsonl", "sns-baseline.jsonl", VerdictTransient,
			[]envelopeView{{VerdictTransient, "sns", 180}}, "sns: version=1 {",
			[]string{"the error names HTTP status 503 (class 5xx: the server failed — retryable) — transient", "content matches the baseline"}},
		{"eventbridge detail v2 trickle", "eventbridge-trickle.jsonl", "eventbridge-baseline.jsonl", VerdictPoison,
			[]envelopeView{{VerdictPoison, "eventbridge", 60}}, "eventbridge: source=com.example.orders detail-type=OrderPlaced version=2 {",
			[]string{"version=2, absent from the baseline", "a trickle — the time pattern does not matter here"}},
		{"eventbridge target throttled", "eventbridge-dlq-outage.jsonl", "eventbridge-baseline.jsonl", VerdictTransient,
			[]envelopeView{{VerdictTransient, "eventbridge-dlq/eventbridge", 120}}, "eventbridge-dlq/eventbridge: source=com.example.orders detail-type=OrderPlaced version=1 {",
			[]string{`the error says "rate exceeded"`, "SDK_CLIENT_ERROR: Unable to invoke Lambda function: Rate exceeded"}},
		{"lambda timeouts", "lambda-async-timeouts.jsonl", "lambda-async-baseline.jsonl", VerdictTransient,
			[]envelopeView{{VerdictTransient, "lambda-async", 150}}, "lambda-async: version=1 {",
			[]string{"the error names Lambda errorType Sandbox.Timedout (the function ran into its configured timeout of 6 s) — transient", "Task timed out after <n> seconds"}},
		{"bulk import of unknown customers", "destination-import.jsonl", "destination-baseline.jsonl", VerdictData,
			[]envelopeView{{VerdictData, "lambda-destination", 240}}, "lambda-destination: version=1 {",
			[]string{`the error says "not found"`, "a clear error outranks the arrival pattern (a burst alone would suggest transient)",
				"which looks transient — the error says otherwise", "CustomerNotFound: customer C-<n> not found"}},
		{"timeouts over a trickle of unknown customers", "destination-mixed.jsonl", "destination-baseline.jsonl", VerdictMixed,
			[]envelopeView{{VerdictTransient, "lambda-destination", 130}, {VerdictData, "lambda-destination", 50}}, "lambda-destination: version=1 {",
			nil},
		{"s3 throttling over missing objects", "s3-mixed.jsonl", "s3-baseline.jsonl", VerdictMixed,
			[]envelopeView{{VerdictTransient, "s3", 100}, {VerdictData, "s3", 30}}, "s3: eventVersion=2.1 {Records}",
			[]string{"the error names AWS error code SlowDown (a throttle by the SDK's retry classification", "the error names AWS error code NoSuchKey (S3: the object the message names does not exist) — data"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := runFixture(t, tt.file, Options{Baseline: baselineFile(t, tt.baseline, nil), Queue: "orders-dlq"})
			var got []envelopeView
			var evidence []string
			for _, g := range c.Groups {
				got = append(got, envelopeView{g.Verdict, g.Envelope, g.Count})
				evidence = append(evidence, g.Evidence...)
			}
			all := strings.Join(evidence, "\n")
			if c.Verdict != tt.verdict {
				t.Errorf("verdict %s, want %s\nevidence:\n%s", c.Verdict, tt.verdict, all)
			}
			if diff := cmp.Diff(tt.groups, got); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
			if len(c.Groups) > 0 && !strings.HasPrefix(c.Groups[0].Fingerprint, tt.fingerprint) {
				t.Errorf("fingerprint %q, want it to start %q", c.Groups[0].Fingerprint, tt.fingerprint)
			}
			for _, want := range tt.evidence {
				if !strings.Contains(all, want) {
					t.Errorf("no evidence says %q; evidence:\n%s", want, all)
				}
			}
			// Every message falls, through GroupOf, in the group it was
			// counted in: what redrive --group relies on.
			msgs := readAll(t, tt.file)
			counts := map[string]int{}
			for i := range msgs {
				g, ok := c.GroupOf(&msgs[i], nil)
				if !ok {
					t.Fatalf("message %s falls in no group", msgs[i].MessageId)
				}
				counts[g.ID]++
			}
			for _, g := range c.Groups {
				if counts[g.ID] != g.Count {
					t.Errorf("GroupOf puts %d in %s, classify counted %d", counts[g.ID], g.ID, g.Count)
				}
			}
		})
	}
}

// TestEnvelopeBaselineAcrossShapes: the payload is compared, so a baseline
// of bare messages judges SNS-wrapped ones, and a bare v1 baseline does not
// pass an SNS-wrapped v2 deploy.
func TestEnvelopeBaselineAcrossShapes(t *testing.T) {
	bare := loadBaseline(t)
	c := runFixture(t, "sns-deploy.jsonl", Options{Baseline: bare})
	if c.Verdict != VerdictPoison || c.Groups[0].Count != 340 {
		t.Errorf("sns deploy against a bare baseline: %s %d", c.Verdict, c.Groups[0].Count)
	}
	c = runFixture(t, "sns-outage.jsonl", Options{Baseline: bare})
	if c.Verdict != VerdictTransient {
		t.Errorf("sns outage against a bare baseline: %s", c.Verdict)
	}
	// Without the envelope the fingerprint used to be the SNS keys, and a
	// v2 deploy read as a transient burst; --expect now sees the payload.
	c = runFixture(t, "sns-deploy.jsonl", Options{Expect: []Expectation{{"version", "1"}}})
	if c.Verdict != VerdictPoison || !strings.Contains(strings.Join(c.Groups[0].Evidence, "\n"), "340 of 340 have version=2") {
		t.Errorf("sns deploy with --expect version=1: %s %q", c.Verdict, c.Groups[0].Evidence)
	}
}

// TestContentOutranksTheError: a payload contrary to the baseline is poison
// whatever its error says.
func TestContentOutranksTheError(t *testing.T) {
	msgs := readAll(t, "destination-import.jsonl")
	for i := range msgs {
		msgs[i].Body = strings.Replace(msgs[i].Body, `"version":1`, `"version":2`, 1)
	}
	c := New(Options{Baseline: baselineFile(t, "destination-baseline.jsonl", nil)})
	for i := range msgs {
		if err := c.Add(&msgs[i]); err != nil {
			t.Fatal(err)
		}
	}
	res := c.Result()
	all := strings.Join(res.Groups[0].Evidence, "\n")
	if res.Verdict != VerdictPoison || !strings.Contains(all, `the error says "not found" (data), but the content is the proof`) {
		t.Errorf("verdict %s; evidence:\n%s", res.Verdict, all)
	}
}

func TestPayloadPathGroups(t *testing.T) {
	d, err := envelope.NewDetector(".data")
	if err != nil {
		t.Fatal(err)
	}
	msgs := readAll(t, "deploy.jsonl")[:6]
	for i := range msgs {
		msgs[i].Body = `{"meta":{"producer":"orders"},"data":` + msgs[i].Body + `}`
	}
	msgs[5].Body = `{"meta":{"producer":"orders"}}`
	c := New(Options{Envelope: d})
	for i := range msgs {
		if err := c.Add(&msgs[i]); err != nil {
			t.Fatal(err)
		}
	}
	res := c.Result()
	if res.PayloadPath != ".data" || len(res.Groups) != 2 {
		t.Fatalf("payload path %q, %d groups", res.PayloadPath, len(res.Groups))
	}
	if g := res.Groups[0]; g.Count != 5 || !strings.HasPrefix(g.Fingerprint, "raw .data: version=2 {") {
		t.Errorf("g1 = %d %q %s", g.Count, g.Fingerprint, g.Verdict)
	}
	if g := res.Groups[1]; g.Count != 1 || g.Fingerprint != "raw .data: "+FingerprintNoPayload || g.Verdict != VerdictPoison ||
		!strings.Contains(g.Evidence[0], "1 messages have nothing at .data (--payload)") {
		t.Errorf("g2 = %d %q %s %q", g.Count, g.Fingerprint, g.Verdict, g.Evidence)
	}
	if g, ok := res.GroupOf(&msgs[5], nil); !ok || g.ID != "g2" {
		t.Errorf("GroupOf(no payload) = %v, %v: want g2 through the recorded path", g, ok)
	}
}

func TestErrorMeaning(t *testing.T) {
	tests := []struct {
		text    string
		verdict Verdict
		words   string
	}{
		{"2024-03-12T14:02:06.010Z 7ae1b6d2 Task timed out after 6.01 seconds", VerdictTransient, "timed out"},
		{"PaymentGatewayTimeout: payment gateway did not answer in 3000 ms", VerdictTransient, "gateway timeout"},
		{"ThrottlingException: Rate exceeded", VerdictTransient, "throttling"},
		{"upstream returned HTTP 503", VerdictTransient, "http 503"},
		{"connect ECONNREFUSED 10.0.0.7:5432", VerdictTransient, "econnrefused"},
		{"read: connection reset by peer", VerdictTransient, "connection reset"},
		{"StockServiceUnavailable", VerdictTransient, "unavailable"},
		{"CustomerNotFound: customer C-1042 not found", VerdictData, "not found"},
		{"SkuNotFound: SKU-9123", VerdictData, "not found"},
		{"ValidationError: quantity must be positive", VerdictData, "validation"},
		{`duplicate key value violates unique constraint "orders_pkey"`, VerdictData, "duplicate key"},
		{"invalid customer_id: C-99", VerdictData, "invalid customer"},
		{"UnsupportedVersionError: version 2", VerdictPoison, "unsupported version"},
		{"SerializationException: Cannot deserialize value of type `Order`", VerdictPoison, "cannot deserialize"},
		{"SyntaxError: Unexpected token < in JSON at position 0", VerdictPoison, "syntax error"},
		{"TypeError: Cannot read properties of undefined (reading 'currency')", VerdictPoison, "type error"},
		{"cannot parse order: unknown field", VerdictPoison, "cannot parse"},
		{"schema mismatch for OrderPlaced", VerdictPoison, "schema"},
		{"INVALID_JSON: the event is not valid JSON", VerdictPoison, "invalid json"},
		{"NO_PERMISSIONS: not authorized to invoke the function", VerdictTransient, "no permissions"},
		{"RuntimeError: something odd", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		m := phraseMeaningOf(tt.text)
		if m.verdict != tt.verdict || m.words != tt.words {
			t.Errorf("%q: %q %q, want %q %q", tt.text, m.verdict, m.words, tt.verdict, tt.words)
		}
	}
}
