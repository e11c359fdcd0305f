package classify

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// groupView is what a scenario test checks of a group.
type groupView struct {
	Verdict Verdict
	Count   int
	Pattern string
}

func runFixture(t *testing.T, name string, opts Options) *Classification {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := Run(f, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

func loadBaseline(t *testing.T) *Baseline {
	t.Helper()
	return baselineFile(t, "deploy-baseline.jsonl", nil)
}

func TestScenarios(t *testing.T) {
	base := loadBaseline(t)
	expectV1 := []Expectation{{"version", "1"}}
	tests := []struct {
		name     string
		file     string
		opts     Options
		verdict  Verdict
		minConf  float64
		maxConf  float64
		groups   []groupView
		evidence []string // substrings that some group evidence must hold
	}{
		{"sunday deploy with baseline", "deploy.jsonl", Options{Baseline: base}, VerdictPoison, 0.85, 1,
			[]groupView{{VerdictPoison, 340, PatternBurst}},
			[]string{"version=2, absent from the baseline", "the version is the proof", "misleading", "22:04–23:51", "receive count 5 for all 340"}},
		{"sunday deploy with --expect", "deploy.jsonl", Options{Expect: expectV1}, VerdictPoison, 0.9, 1,
			[]groupView{{VerdictPoison, 340, PatternBurst}},
			[]string{"340 of 340 have version=2, but the consumer expects version=1"}},
		// No error, no logs, no baseline, no --expect: the burst is a clue,
		// not a proof.
		{"sunday deploy without baseline", "deploy.jsonl", Options{}, VerdictUnknown, 0, 0.3,
			[]groupView{{VerdictUnknown, 340, PatternBurst}},
			[]string{"all 340 share version=2; without a baseline, poison cannot be ruled out", "a burst: looks transient — not proven", "mfdlq logs --queue DLQ --log-group LOG_GROUP"}},
		{"payment gateway outage", "outage.jsonl", Options{Baseline: base}, VerdictTransient, 0.85, 1,
			[]groupView{{VerdictTransient, 180, PatternBurst}},
			[]string{"(29m)", "the same error on all 180", "content matches the baseline"}},
		{"missing SKUs trickle", "sku.json", Options{Baseline: base}, VerdictData, 0.85, 1,
			[]groupView{{VerdictData, 60, PatternTrickle}},
			[]string{"a trickle", "different error texts naming different entities"}},
		{"truncated bodies", "truncated.jsonl", Options{}, VerdictPoison, 0.9, 1,
			[]groupView{{VerdictPoison, 45, PatternTrickle}},
			[]string{"45 bodies are not JSON (first: truncated after", "the content is the proof"}},
		{"outage plus data trickle", "mixed.jsonl", Options{Baseline: base}, VerdictMixed, 0.85, 1,
			[]groupView{{VerdictTransient, 150, PatternBurst}, {VerdictData, 40, PatternTrickle}}, nil},
		// The thresholds make the outage a trickle, which alone would say
		// data; its error says timeout, and a clear error outranks the
		// arrival pattern.
		{"thresholds overridden: 29 minutes is no burst", "outage.jsonl", Options{Baseline: base,
			Thresholds: Thresholds{BurstWindow: Duration{10 * time.Minute}, BurstShare: 0.9, TrickleSpan: Duration{20 * time.Minute}}},
			VerdictTransient, 0.8, 0.9, []groupView{{VerdictTransient, 180, PatternTrickle}},
			[]string{"with no burst: a trickle — the error says otherwise", "a clear error outranks the arrival pattern (a trickle alone would suggest data)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := runFixture(t, tt.file, tt.opts)
			var got []groupView
			var evidence []string
			for _, g := range c.Groups {
				got = append(got, groupView{g.Verdict, g.Count, g.Pattern})
				evidence = append(evidence, g.Evidence...)
			}
			if c.Verdict != tt.verdict {
				t.Errorf("verdict %s, want %s\nevidence: %q", c.Verdict, tt.verdict, evidence)
			}
			if diff := cmp.Diff(tt.groups, got); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
			if c.Confidence < tt.minConf || c.Confidence > tt.maxConf {
				t.Errorf("confidence %.2f, want within [%.2f, %.2f]", c.Confidence, tt.minConf, tt.maxConf)
			}
			all := strings.Join(evidence, "\n")
			for _, want := range tt.evidence {
				if !strings.Contains(all, want) {
					t.Errorf("no evidence says %q; evidence:\n%s", want, all)
				}
			}
			for i, g := range c.Groups {
				sum := 0
				for _, n := range g.Arrivals {
					sum += n
				}
				if sum != g.Count || len(g.Arrivals) != ChartColumns {
					t.Errorf("group %d arrivals %v: want %d columns summing to %d", i, g.Arrivals, ChartColumns, g.Count)
				}
				if g.Action == "" {
					t.Errorf("group %d has no action", i)
				}
			}
		})
	}
}

func TestMixedGroupsAreDisjoint(t *testing.T) {
	c := runFixture(t, "mixed.jsonl", Options{Queue: "orders-dlq"})
	if c.Groups[0].ID != "g1" || c.Groups[1].ID != "g2" {
		t.Fatalf("ids %s, %s: want g1, g2 by size", c.Groups[0].ID, c.Groups[1].ID)
	}
	if !strings.Contains(c.Groups[1].Action, "mfdlq redrive --queue orders-dlq --group g2") {
		t.Errorf("action %q does not name the group's redrive", c.Groups[1].Action)
	}
	// Every message of the file falls, by KeyOf, in the group classify
	// counted it in: what redrive --group relies on.
	msgs := readAll(t, "mixed.jsonl")
	counts := map[string]int{}
	for i := range msgs {
		g, ok := c.GroupOf(&msgs[i], nil)
		if !ok {
			t.Fatalf("message %s falls in no group", msgs[i].MessageId)
		}
		counts[g.ID]++
	}
	if diff := cmp.Diff(map[string]int{"g1": 150, "g2": 40}, counts); diff != "" {
		t.Errorf("GroupOf counts (-want +got):\n%s", diff)
	}
}

func TestParseRoundTrip(t *testing.T) {
	c := runFixture(t, "mixed.jsonl", Options{Thresholds: DefaultThresholds()})
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(b, "classification.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, got); diff != "" {
		t.Errorf("Parse(written) differs (-want +got):\n%s", diff)
	}
	if _, err := Parse([]byte("{"), "classification.json"); err == nil || !strings.HasPrefix(err.Error(), "classification.json: ") {
		t.Errorf("Parse(truncated) = %v, want an error naming the file", err)
	}
}

func TestLogsSignaturesWin(t *testing.T) {
	msgs := readAll(t, "deploy.jsonl")[:4]
	// What logsearch.Result.Signatures gives for two found messages.
	sigs := Signatures{msgs[0].MessageId: "UnsupportedVersionError: version <n>", msgs[1].MessageId: "UnsupportedVersionError: version <n>"}
	// The logs' signature beats an attribute, and without a baseline the
	// consumer's version error still makes the group poison.
	v := "SomethingElse"
	msgs[0].MessageAttributes = map[string]sqsjson.MessageAttributeValue{"ErrorCode": {DataType: "String", StringValue: &v}}
	c := New(Options{Signatures: sigs})
	for i := range msgs {
		if err := c.Add(&msgs[i]); err != nil {
			t.Fatal(err)
		}
	}
	res := c.Result()
	var got []groupView
	for _, g := range res.Groups {
		got = append(got, groupView{g.Verdict, g.Count, g.SignatureSource})
	}
	// What the logs proved for two applies to the two others of their
	// fingerprint, which carry no error of their own: one group of 4.
	wantGroups := []groupView{{VerdictPoison, 4, "logs"}}
	if diff := cmp.Diff(wantGroups, got); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if g := res.Groups[0]; g.Inferred != 2 || !strings.Contains(strings.Join(g.Evidence, "\n"), "2 of 4 carry no error of their own and share the fingerprint of the 2 the consumer's logs were looked up for: the same error, inferred from 2 looked up") {
		t.Errorf("inferred %d, evidence %q: want 2 inferred, said", g.Inferred, g.Evidence)
	}
	// A live message without an error falls in that group (redrive --group).
	if g, ok := res.GroupOf(&msgs[3], sigs); !ok || g.ID != "g1" {
		t.Errorf("GroupOf(a message without error) = %v, %v: want g1", g, ok)
	}
	if k := KeyOf(&msgs[0], sigs); k.Signature != "UnsupportedVersionError: version <n>" {
		t.Errorf("KeyOf signature %q: the logs' must win", k.Signature)
	}
}

func TestDuplicatesAndKey(t *testing.T) {
	c := runFixture(t, "dupes.jsonl", Options{Key: "pedido_id"})
	if diff := cmp.Diff(Duplicates{DistinctBodies: 18, Repeated: 6, Exact: true}, c.Duplicates); diff != "" {
		t.Errorf("duplicates (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&KeyCount{Field: "pedido_id", Distinct: 12, Exact: true}, c.Key); diff != "" {
		t.Errorf("key (-want +got):\n%s", diff)
	}
	all := strings.Join(c.Evidence, "\n")
	for _, want := range []string{"6 messages repeat an earlier body", "24 messages hold 12 distinct pedido_id"} {
		if !strings.Contains(all, want) {
			t.Errorf("evidence lacks %q:\n%s", want, all)
		}
	}
}

func TestBadInput(t *testing.T) {
	tests := []struct{ file, want string }{
		{"not-json.jsonl", "line 2: not a JSON SQS message"},
		{"missing-sent.jsonl", "line 3: message "},
	}
	for _, tt := range tests {
		f, err := os.Open(filepath.Join(fixtureDir, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		c, err := Run(f, Options{})
		f.Close()
		var le *sqsjson.LineError
		if c != nil || !errors.As(err, &le) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got (%v, %v), want no result and an error containing %q", tt.file, c, err, tt.want)
		}
	}
}

func TestDistinctEstimate(t *testing.T) {
	var d distinct
	const n = 300000
	for i := 0; i < n; i++ {
		d.add("body-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i))
		if i%3 == 0 {
			d.add("body-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i)) // a repeat
		}
	}
	got, exact := d.count()
	if exact || got < n*97/100 || got > n*103/100 {
		t.Errorf("count = %d (exact %v), want an estimate within 3%% of %d", got, exact, n)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func readAll(t *testing.T, name string) []sqsjson.Message {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	msgs, err := sqsjson.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}
