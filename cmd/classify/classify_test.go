package classify

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	classifystep "github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/sqsjson"
)

func TestClassifyFlags(t *testing.T) {
	tests := []struct {
		argv    []string
		want    ClassifyOptions
		wantKey string // the idempotency key's expression
		wantErr string
	}{
		{argv: []string{"--from", "s.jsonl", "--expect", "version=1", "--expect", "version=3", "--key", "pedido_id", "--burst-window", "30m"},
			want: ClassifyOptions{From: "s.jsonl", Sample: 100, Expect: []string{"version=1", "version=3"}, Key: "pedido_id",
				BurstWindow: 30 * time.Minute, BurstShare: 0.9, TrickleSpan: 6 * time.Hour,
				expect: []classifystep.Expectation{{Field: "version", Value: "1"}, {Field: "version", Value: "3"}}, field: "pedido_id"},
			wantKey: `.["pedido_id"] | tostring`},
		{argv: []string{"--from", "s.jsonl", "--key", `"cobro:" + .order_id`},
			want:    ClassifyOptions{From: "s.jsonl", Sample: 100, Key: `"cobro:" + .order_id`, BurstWindow: 2 * time.Hour, BurstShare: 0.9, TrickleSpan: 6 * time.Hour},
			wantKey: `"cobro:" + .order_id`},
		{argv: []string{"--queue", "orders-dlq", "--sample", "50", "--baseline", "b.jsonl", "--force"},
			want: ClassifyOptions{Queue: "orders-dlq", Sample: 50, Baseline: "b.jsonl", Force: true, BurstWindow: 2 * time.Hour, BurstShare: 0.9, TrickleSpan: 6 * time.Hour}},
		{argv: []string{"--from", "f", "--burst-window", "10m", "--burst-share", "0.5", "--trickle-span", "1h"},
			want: ClassifyOptions{From: "f", Sample: 100, BurstWindow: 10 * time.Minute, BurstShare: 0.5, TrickleSpan: time.Hour}},
		{argv: []string{}, wantErr: "pass --from-file FILE or --queue DLQ: the messages to classify"},
		{argv: []string{"--queue", "q", "--sample", "0"}, wantErr: "--sample must be between 1 and 10000, got 0"},
		{argv: []string{"--from", "f", "--burst-share", "1.5"}, wantErr: "--burst-share must be in (0, 1], got 1.5"},
		{argv: []string{"--from", "f", "--expect", "=1"}, wantErr: `--expect "=1": use FIELD=VALUE, e.g. --expect version=1`},
		{argv: []string{"--from", "f", "--key", "a.b"}, wantErr: `--key "a.b": function not defined: a/0: fix the expression`},
		{argv: []string{"--from", "f", "--key", `"cobro:" + .[`}, wantErr: `--key "\"cobro:\" + .[": unexpected EOF: fix the expression (jq syntax)`},
		{argv: []string{"--from", "f", "--payload", ".data"}, want: ClassifyOptions{From: "f", Sample: 100, Payload: ".data", BurstWindow: 2 * time.Hour, BurstShare: 0.9, TrickleSpan: 6 * time.Hour}},
		{argv: []string{"--from", "f", "--fetch-payloads", "20"}, want: ClassifyOptions{From: "f", Sample: 100, Fetch: 20, BurstWindow: 2 * time.Hour, BurstShare: 0.9, TrickleSpan: 6 * time.Hour}},
		{argv: []string{"--from", "f", "--fetch-payloads", "1001"}, wantErr: "--fetch-payloads must be between 0 and 1000, got 1001"},
		{argv: []string{"--from", "f", "--payload", ".data["}, wantErr: `--payload ".data[": [ without ]; use a jq path such as .data or .detail.order or .items[0]`},
	}
	for _, tt := range tests {
		var got *ClassifyOptions
		d, _, _ := cmdtest.Deps(t, false)
		c := NewCmdClassify(d, func(o *ClassifyOptions) error { got = o; return nil })
		err := cmdtest.ParseWith(c, tt.argv)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr || cmdutil.ExitCode(err, false) != cmdutil.ExitUsage {
				t.Errorf("%v: error %v, want exit 2 %q", tt.argv, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tt.argv, err)
		}
		// The detector is built from Payload, which is compared.
		got.deps, got.envelope = nil, nil
		gotKey := ""
		if got.dedupe != nil { // compiled from Key: its expression is compared
			gotKey, got.dedupe = got.dedupe.Expr, nil
		}
		if gotKey != tt.wantKey {
			t.Errorf("%v: key expression %q, want %q", tt.argv, gotKey, tt.wantKey)
		}
		if diff := cmp.Diff(tt.want, *got, cmp.AllowUnexported(ClassifyOptions{}), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.argv, diff)
		}
	}
}

// TestGroupActionNoPlaceholder: an action quoting a signature quotes one
// real error text of the group instead; without one, the placeholders are
// said in words.
func TestGroupActionNoPlaceholder(t *testing.T) {
	sig := "<n>: payment-gateway returned <n> Service Unavailable"
	g := classifystep.Group{Signature: sig, Error: "503: payment-gateway returned 503 Service Unavailable", DistinctErrors: 3,
		Action: `once the dependency behind "` + sig + `" is healthy again, redrive: mfdlq redrive --queue q --group g1`}
	if got, want := groupAction(&g), `once the dependency behind "503: payment-gateway returned 503 Service Unavailable" is healthy again, redrive: mfdlq redrive --queue q --group g1`; got != want {
		t.Errorf("groupAction = %q, want %q", got, want)
	}
	if got, want := groupError(&g), "503: payment-gateway returned 503 Service Unavailable (and 2 other texts like it)"; got != want {
		t.Errorf("groupError = %q, want %q", got, want)
	}
	g.Error = ""
	if got := groupAction(&g); strings.Contains(got, "<n>") || !strings.Contains(got, `"(a number): payment-gateway returned (a number) Service Unavailable"`) {
		t.Errorf("groupAction without an error text = %q", got)
	}
}

// A source attribute is data like any other: in a file it can hold escape
// sequences, and they never reach the terminal raw in classify's groups.
func TestHostileSourceIsSanitised(t *testing.T) {
	hostile := "arn:aws:sqs:eu-west-1:123456789012:\x1b]0;pwned\x07orders\u202e"
	msgs := []sqsjson.Message{cmdtest.FromSource("a", hostile), cmdtest.FromSource("b", "")}
	for _, tty := range []bool{true, false} {
		d, out, _ := cmdtest.Deps(t, tty)
		c := classifystep.New(classifystep.Options{})
		for i := range msgs {
			if err := c.Add(&msgs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := (&ClassifyOptions{deps: d}).render(c.Result()); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if cmdtest.Raw(got) || !strings.Contains(got, `\x1b]0;pwned\x07orders\u202e`) {
			t.Errorf("tty %v: classify shows %q", tty, got)
		}
	}
}
