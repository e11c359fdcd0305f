package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
)

// TestExportFlags: argv to options, or the exact usage error before any
// AWS call.
func TestExportFlags(t *testing.T) {
	dir := t.TempDir()
	exists := filepath.Join(dir, "there.jsonl")
	os.WriteFile(exists, nil, 0o600)
	out := filepath.Join(dir, "new.jsonl.gz")
	tests := []struct {
		args    string
		want    ExportOptions
		wantErr string
	}{
		{args: "--queue q --out " + out, want: ExportOptions{Queue: "q", Out: out, Visibility: 300}},
		{args: "--queue q --out " + out + " --force", want: ExportOptions{Queue: "q", Out: out, Visibility: 300, Force: true}},
		{args: "--queue q --out s3://archive-1/q/x.jsonl --delete --yes --max 10 --filter .Body.v==2 --visibility 600",
			want: ExportOptions{Queue: "q", Out: "s3://archive-1/q/x.jsonl", Delete: true, Yes: true, Max: 10, Filter: ".Body.v==2", Visibility: 600}},
		{args: "--out x", wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: "--queue q", wantErr: "--out is required: a file name (orders-dlq.jsonl.gz) or s3://BUCKET/KEY"},
		{args: "--queue q --out " + exists, wantErr: "--out " + exists + ": already exists: mfdlq never replaces a file; pick a new name"},
		{args: "--queue q --out s3://archive", wantErr: `--out "s3://archive": name the object, e.g. s3://archive/orders-dlq.jsonl.gz`},
		{args: "--queue q --out " + out + " --visibility 30", wantErr: "--visibility must be between 60 and 43200 seconds, got 30"},
		{args: "--queue q --out " + out + " --max -1", wantErr: "--max must be >= 0, got -1"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			t.Setenv(inFlightLimitEnv, "")
			d, _, _ := cmdtest.Deps(t, false)
			newCmd := func(runF func(*ExportOptions) error) *cobra.Command { return NewCmdExport(d, runF) }
			cmdtest.CheckParse(t, newCmd, strings.Fields(tc.args), tc.want, tc.wantErr, cmpopts.IgnoreUnexported(ExportOptions{}))
		})
	}
}

// MFDLQ_INFLIGHT_LIMIT is read before any AWS call: a whole number ≥ 1,
// else one usage line. Not parallel: it sets the environment.
func TestExportInFlightLimitEnv(t *testing.T) {
	out := filepath.Join(t.TempDir(), "new.jsonl")
	for v, want := range map[string]string{
		"0":    `MFDLQ_INFLIGHT_LIMIT="0": want a whole number of messages ≥ 1 (SQS's is 120,000), or unset it`,
		"1e5":  `MFDLQ_INFLIGHT_LIMIT="1e5": want a whole number of messages ≥ 1 (SQS's is 120,000), or unset it`,
		"5000": "",
		"":     "",
	} {
		t.Run(v, func(t *testing.T) {
			t.Setenv(inFlightLimitEnv, v)
			d, _, _ := cmdtest.Deps(t, false)
			var got *ExportOptions
			err := cmdtest.ParseWith(NewCmdExport(d, func(o *ExportOptions) error { got = o; return nil }), []string{"--queue", "q", "--out", out})
			if want != "" {
				cmdtest.CheckUsageErr(t, err, want)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if wantLimit := map[string]int{"5000": 5000, "": 120_000}[v]; got.limit != wantLimit {
				t.Fatalf("limit %d, want %d", got.limit, wantLimit)
			}
		})
	}
}
