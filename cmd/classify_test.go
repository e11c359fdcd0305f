package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/rogpeppe/go-internal/testscript"
)

// classify-fixture NAME... copies testdata/classify/NAME into $WORK.
func cmdClassifyFixture(ts *testscript.TestScript, neg bool, args []string) {
	for _, name := range args {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "classify", name))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(name), b, 0o600))
	}
}

func TestClassifyFlags(t *testing.T) {
	tests := []struct {
		argv    []string
		want    classifyOptions
		wantKey string // the idempotency key's expression
		wantErr string
	}{
		{argv: []string{"--from", "s.jsonl", "--expect", "version=1", "--expect", "version=3", "--key", "pedido_id", "--burst-window", "30m"},
			want: classifyOptions{From: "s.jsonl", Sample: 100, Expect: []string{"version=1", "version=3"}, Key: "pedido_id",
				BurstWindow: 30 * time.Minute, BurstShare: 0.9, TrickleSpan: 6 * time.Hour,
				expect: []classify.Expectation{{Field: "version", Value: "1"}, {Field: "version", Value: "3"}}, field: "pedido_id"},
			wantKey: `.["pedido_id"] | tostring`},
		{argv: []string{"--from", "s.jsonl", "--key", `"cobro:" + .order_id`},
			want:    classifyOptions{From: "s.jsonl", Sample: 100, Key: `"cobro:" + .order_id`, BurstWindow: 2 * time.Hour, BurstShare: 0.9, TrickleSpan: 6 * time.Hour},
			wantKey: `"cobro:" + .order_id`},
		{argv: []string{"--queue", "orders-dlq", "--sample", "50", "--baseline", "b.jsonl", "--force"},
			want: classifyOptions{Queue: "orders-dlq", Sample: 50, Baseline: "b.jsonl", Force: true, BurstWindow: 2 * time.Hour, BurstShare: 0.9, TrickleSpan: 6 * time.Hour}},
		{argv: []string{"--from", "f", "--burst-window", "10m", "--burst-share", "0.5", "--trickle-span", "1h"},
			want: classifyOptions{From: "f", Sample: 100, BurstWindow: 10 * time.Minute, BurstShare: 0.5, TrickleSpan: time.Hour}},
		{argv: []string{}, wantErr: "pass --from-file FILE or --queue DLQ: the messages to classify"},
		{argv: []string{"--queue", "q", "--sample", "0"}, wantErr: "--sample must be between 1 and 10000, got 0"},
		{argv: []string{"--from", "f", "--burst-share", "1.5"}, wantErr: "--burst-share must be in (0, 1], got 1.5"},
		{argv: []string{"--from", "f", "--expect", "=1"}, wantErr: `--expect "=1": use FIELD=VALUE, e.g. --expect version=1`},
		{argv: []string{"--from", "f", "--key", "a.b"}, wantErr: `--key "a.b": function not defined: a/0: fix the expression`},
		{argv: []string{"--from", "f", "--key", `"cobro:" + .[`}, wantErr: `--key "\"cobro:\" + .[": unexpected EOF: fix the expression (jq syntax)`},
		{argv: []string{"--from", "f", "--payload", ".data"}, want: classifyOptions{From: "f", Sample: 100, Payload: ".data", BurstWindow: 2 * time.Hour, BurstShare: 0.9, TrickleSpan: 6 * time.Hour}},
		{argv: []string{"--from", "f", "--fetch-payloads", "20"}, want: classifyOptions{From: "f", Sample: 100, Fetch: 20, BurstWindow: 2 * time.Hour, BurstShare: 0.9, TrickleSpan: 6 * time.Hour}},
		{argv: []string{"--from", "f", "--fetch-payloads", "1001"}, wantErr: "--fetch-payloads must be between 0 and 1000, got 1001"},
		{argv: []string{"--from", "f", "--payload", ".data["}, wantErr: `--payload ".data[": [ without ]; use a jq path such as .data or .detail.order or .items[0]`},
	}
	for _, tt := range tests {
		var got *classifyOptions
		d := &Deps{Deps: cmdutil.Deps{IO: &IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Global: &GlobalOptions{Incident: t.TempDir()}, Now: time.Now}}
		c := newClassifyCmd(d, func(o *classifyOptions) error { got = o; return nil })
		err := parseWith(c, tt.argv)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr || exitCode(err, false) != ExitUsage {
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
		if diff := cmp.Diff(tt.want, *got, cmp.AllowUnexported(classifyOptions{}), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.argv, diff)
		}
	}
}
