package inspect

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMain gives the tests that peek a local AWS, started by the first
// that asks (localaws.Wrap): the flag tests run without one.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// TestInspectFlags: argv to options, or the exact usage error before any
// AWS call.
func TestInspectFlags(t *testing.T) {
	tests := []struct {
		args    []string
		want    InspectOptions
		wantErr string
	}{
		{args: []string{"--queue", "orders-dlq"}, want: InspectOptions{Queue: "orders-dlq", Max: 10, Visibility: 5, Wait: 2}},
		{args: []string{"--queue", "q", "--max", "25", "--out", "s.jsonl", "--force"}, want: InspectOptions{Queue: "q", Max: 25, Visibility: 5, Wait: 2, Out: "s.jsonl", Force: true}},
		{args: []string{}, wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: []string{"--queue", "q", "--max", "0"}, wantErr: "--max must be between 1 and 10000, got 0"},
		{args: []string{"--queue", "q", "--payload", ".data"}, want: InspectOptions{Queue: "q", Max: 10, Visibility: 5, Wait: 2, Payload: ".data"}},
		{args: []string{"--queue", "q", "--payload", "data"}, wantErr: `--payload "data": a path starts with a dot; use a jq path such as .data or .detail.order or .items[0]`},
		{args: []string{"--queue", "q", "--baseline", "b.jsonl", "--fetch-payloads", "5"}, want: InspectOptions{Queue: "q", Max: 10, Visibility: 5, Wait: 2, Baseline: "b.jsonl", Fetch: 5}},
		{args: []string{"--queue", "q", "--fetch-payloads", "-2"}, wantErr: "--fetch-payloads must be between 0 and 1000, got -2"},
		{args: []string{"--queue", "q", "--visibility", "301"}, wantErr: "--visibility must be between 1 and 300 seconds, got 301"},
		{args: []string{"--queue", "q", "--visibility", "0"}, wantErr: "--visibility must be between 1 and 300 seconds, got 0"},
		{args: []string{"--queue", "q", "--wait", "0"}, wantErr: "--long-poll must be between 1s and 20s, got 0s"},
		{args: []string{"--queue", "q", "--long-poll", "21s"}, wantErr: "--long-poll must be between 1s and 20s, got 21s"},
		{args: []string{"--queue", "q", "--long-poll", "5s"}, want: InspectOptions{Queue: "q", Max: 10, Visibility: 5, Wait: 5}},
		{args: []string{"--queue", "q", "--wait", "7"}, want: InspectOptions{Queue: "q", Max: 10, Visibility: 5, Wait: 7}}, // the old name, in seconds
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			newCmd := func(runF func(*InspectOptions) error) *cobra.Command { return NewCmdInspect(d, runF) }
			cmdtest.CheckParse(t, newCmd, tc.args, tc.want, tc.wantErr, cmpopts.IgnoreUnexported(InspectOptions{}))
		})
	}
}

func TestInspectShapes(t *testing.T) {
	tests := []struct {
		name   string
		tty    bool
		output string
		check  func(t *testing.T, out string)
	}{
		{"piped table is TSV without escape codes", false, "table", func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 4 || lines[0] != "MESSAGE ID\tSENT\tRECEIVES\tSIZE\tKIND\tVERSION\tPAYLOAD" {
				t.Fatalf("got %q", out)
			}
			if strings.Contains(out, "\x1b[") {
				t.Error("escape codes in piped output")
			}
			for _, l := range lines[1:] {
				if f := strings.Split(l, "\t"); len(f) != 7 || f[4] != "raw" || f[5] != "version=2" {
					t.Errorf("row %q", l)
				}
			}
		}},
		{"terminal table is drawn", true, "table", func(t *testing.T, out string) {
			if !strings.Contains(out, "╭") || !strings.Contains(out, "MESSAGE ID") || strings.Count(out, "version=2") != 3 {
				t.Errorf("got %q", out)
			}
		}},
		{"json is an array with snake_case keys", false, "json", func(t *testing.T, out string) {
			var rows []map[string]any
			if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 3 {
				t.Fatalf("rows = %v, %v", rows, err)
			}
			for _, k := range []string{"message_id", "sent_time", "receive_count", "size", "version", "fingerprint", "envelope", "body", "attributes", "message_attributes"} {
				if _, ok := rows[0][k]; !ok {
					t.Errorf("no %q in %v", k, rows[0])
				}
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dlq := cmdtest.SeedDLQ(t, 3)
			d, out, errOut := cmdtest.Deps(t, tc.tty)
			d.Global.Output = tc.output
			err := runInspect(context.Background(), &InspectOptions{deps: d, Queue: dlq, Max: 3, Visibility: 1, Wait: 1})
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, out.String())
			if !strings.Contains(errOut.String(), "account 123456789012 · region us-east-1 · queue "+dlq) {
				t.Errorf("stderr does not name the target: %q", errOut.String())
			}
			st, err := os.Stat(d.Global.Incident + "/samples.jsonl")
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("samples.jsonl: %v %v; want 0600", st, err)
			}
		})
	}
}
