package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestExportFlags(t *testing.T) {
	dir := t.TempDir()
	exists := filepath.Join(dir, "there.jsonl")
	os.WriteFile(exists, nil, 0o600)
	out := filepath.Join(dir, "new.jsonl.gz")
	tests := []struct {
		args    string
		want    exportOptions
		wantErr string
	}{
		{args: "--queue q --out " + out, want: exportOptions{Queue: "q", Out: out, Visibility: 300}},
		{args: "--queue q --out " + out + " --force", want: exportOptions{Queue: "q", Out: out, Visibility: 300, Force: true}},
		{args: "--queue q --out s3://archive-1/q/x.jsonl --delete --yes --max 10 --filter .Body.v==2 --visibility 600",
			want: exportOptions{Queue: "q", Out: "s3://archive-1/q/x.jsonl", Delete: true, Yes: true, Max: 10, Filter: ".Body.v==2", Visibility: 600}},
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
			d, _, _ := testDeps(t, false)
			checkParse(t, d, newExportCmd, strings.Fields(tc.args), tc.want, tc.wantErr, cmpopts.IgnoreUnexported(exportOptions{}))
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
			d, _, _ := testDeps(t, false)
			var got *exportOptions
			err := parseWith(newExportCmd(d, func(o *exportOptions) error { got = o; return nil }), []string{"--queue", "q", "--out", out})
			if want != "" {
				checkUsageErr(t, err, want)
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

func TestRedriveFromFileFlags(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"MessageId\":\"a\",\"Body\":\"\"}\n{\"MessageId\":\"a\",\"Body\":\"x\"}\n"), 0o600)
	for args, want := range map[string]string{
		"--rate 1": "--queue is required: the DLQ's name, URL or ARN",
		"--from-file f --queue q --to d --rate 1": "--queue and --from-file: choose one source",
		"--from-file f --to d --rate 1 --keep":    "--from-file moves a file's messages: --native and --keep do not apply",
		"--from-file s3://b --to d --rate 1":      `--from-file "b": not a bucket name (3-63 lowercase letters, digits, dots and hyphens)`,
		"--from-file " + bad + " --to d --rate 1": "--from-file " + bad + ": line 2: MessageId a again (first on line 1): each message must appear once: nothing sent; give a file mfdlq export wrote (JSON Lines of SQS messages)",
	} {
		t.Run(args, func(t *testing.T) {
			d, _, _ := testDeps(t, false)
			checkUsageErr(t, parseWith(newRedriveCmd(d, func(*redriveOptions) error { return nil }), strings.Fields(args)), want)
		})
	}
}
