package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["classify-fixture"] = cmdClassifyFixture }

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
		wantErr string
	}{
		{argv: []string{"--from", "s.jsonl", "--expect", "version=1", "--expect", "version=3", "--key", "pedido_id", "--burst-window", "30m"},
			want: classifyOptions{From: "s.jsonl", Sample: 100, Expect: []string{"version=1", "version=3"}, Key: "pedido_id"}},
		{argv: []string{"--queue", "orders-dlq", "--sample", "50", "--baseline", "b.jsonl"},
			want: classifyOptions{Queue: "orders-dlq", Sample: 50, Baseline: "b.jsonl"}},
		{argv: []string{}, wantErr: "pass --from FILE or --queue DLQ: the messages to classify"},
		{argv: []string{"--queue", "q", "--sample", "0"}, wantErr: "--sample must be between 1 and 10000, got 0"},
		{argv: []string{"--from", "f", "--burst-share", "1.5"}, wantErr: "--burst-share must be in (0, 1], got 1.5"},
		{argv: []string{"--from", "f", "--expect", "=1"}, wantErr: `--expect "=1": use FIELD=VALUE, e.g. --expect version=1`},
		{argv: []string{"--from", "f", "--key", "a.b"}, wantErr: `--key "a.b": name a top-level payload field (nested paths are not supported)`},
		{argv: []string{"--from", "f", "--payload", ".data"}, want: classifyOptions{From: "f", Sample: 100, Payload: ".data"}},
		{argv: []string{"--from", "f", "--payload", ".data["}, wantErr: `--payload ".data[": [ without ]; use a jq path such as .data or .detail.order or .items[0]`},
	}
	for _, tt := range tests {
		var got *classifyOptions
		d := &Deps{IO: &IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Global: &GlobalOptions{Incident: t.TempDir()}, Now: time.Now}
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
		g := classifyOptions{From: got.From, Queue: got.Queue, Sample: got.Sample, Baseline: got.Baseline, Expect: got.Expect, Key: got.Key, Payload: got.Payload}
		if diff := cmp.Diff(tt.want, g, cmp.AllowUnexported(classifyOptions{}), cmp.FilterPath(func(p cmp.Path) bool {
			return p.Last().String() == ".deps" || p.Last().String() == ".expect" || p.Last().String() == ".envelope"
		}, cmp.Ignore())); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.argv, diff)
		}
		if len(got.expect) != len(tt.want.Expect) {
			t.Errorf("%v: %d parsed expectations, want %d", tt.argv, len(got.expect), len(tt.want.Expect))
		}
	}
}
