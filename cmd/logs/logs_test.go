package logs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/logsearch"
)

// TestMain starts the local AWS only for the test that asks for it
// (TestLogsSpreadsAcrossGroups): the flag and render tests need none.
func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

func TestLogsFlags(t *testing.T) {
	def := LogsOptions{Queue: "q", Groups: []string{"/aws/lambda/orders"}, IDs: 3, Margin: 30 * time.Minute, Since: 24 * time.Hour, Context: 20, Method: "auto", Timeout: 5 * time.Minute}
	with := func(f func(o *LogsOptions)) LogsOptions { o := def; f(&o); return o }
	id := "5e0c2a44-8d1b-4f0e-9c3a-1b2c3d4e5f60"
	g := []string{"--queue", "q", "--log-group", "/aws/lambda/orders"}
	many := append([]string{}, g...)
	for range 51 {
		many = append(many, "--log-group", "g")
	}
	tests := []struct {
		args    []string
		want    LogsOptions
		wantErr string
	}{
		{args: g, want: def},
		{args: append(g, "--log-group", "/aws/lambda/billing", "--message-id", id, "--margin", "2h", "--context", "5"), want: with(func(o *LogsOptions) {
			o.Groups = append(o.Groups, "/aws/lambda/billing")
			o.MessageIDs, o.Margin, o.Context = []string{id}, 2*time.Hour, 5
		})},
		{args: []string{"--queue", "q", "--log-file", "x.jsonl", "--ids", "10", "--from", "s.jsonl"}, want: with(func(o *LogsOptions) { o.Groups, o.LogFile, o.IDs, o.From = nil, "x.jsonl", 10, "s.jsonl" })},
		{args: []string{"--log-group", "g"}, wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: []string{"--queue", "q"}, wantErr: "--log-group is required: the consumer's CloudWatch Logs group (or --log-file FILE)"},
		{args: append(g, "--ids", "0"), wantErr: "--ids must be between 1 and 200, got 0"},
		{args: append(g, "--message-id", `x" OR "y`), wantErr: `--message-id "x\" OR \"y" is not an SQS MessageId (letters, digits and -)`},
		{args: append(g, "--margin", "0s"), wantErr: "--margin and --since must be > 0"},
		{args: append(g, "--context", "-1"), wantErr: "--context must be between 0 and 1000, got -1"},
		{args: append(g, "--method", "grep"), wantErr: `--method "grep": use auto, filter or insights`},
		{args: append(g, "--ids", "4", "--message-id", id), wantErr: "if any flags in the group [ids message-id] are set none of the others can be; [ids message-id] were all set"},
		{args: append(g, "--log-file", "f"), wantErr: "if any flags in the group [log-file log-group] are set none of the others can be; [log-file log-group] were all set"},
		{args: append(many, "--method", "insights"), wantErr: "an Insights query takes at most 50 --log-group, got 52"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			var got *LogsOptions
			c := NewCmdLogs(d, func(o *LogsOptions) error { got = o; return nil })
			err := cmdtest.ParseWith(c, tc.args)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v; want %q", err, tc.wantErr)
				}
				// Every one before the run: the root maps an error before a
				// command's RunE to exit 2 (cobra's flag groups), and the
				// command's own checks are usage errors.
				if got != nil {
					t.Fatalf("the run was called on %q", tc.args)
				}
				if !strings.HasPrefix(err.Error(), "if any flags in the group") && cmdutil.ExitCode(err, false) != cmdutil.ExitUsage {
					t.Fatalf("exit %d, want 2", cmdutil.ExitCode(err, false))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, *got, cmpopts.IgnoreUnexported(LogsOptions{})); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestLogsSpreadsAcrossGroups runs logs against moto with a classification
// whose groups each name one sampled message: the three searched are one per
// group, not the first three samples, and the TTY shape highlights the
// exception.
func TestLogsSpreadsAcrossGroups(t *testing.T) {
	d, out, errOut := cmdtest.Deps(t, true)
	d.Now = func() time.Time { return time.Now().UTC() }
	dlq := cmdtest.SeedDLQ(t, 2)
	ws, err := d.Workspace(dlq)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	samples := ""
	for _, id := range []string{"a1", "a2", "a3", "b1", "c1"} {
		samples += `{"MessageId":"` + id + `","Body":"{}","Attributes":{"SentTimestamp":"` + strconv.FormatInt(now, 10) + `"}}` + "\n"
	}
	ws.WriteFile("samples.jsonl", []byte(samples))
	ws.WriteFile("classification.json", []byte(`{"groups":[{"id":"g1","example_message_ids":["a2","a3"]},{"id":"g2","example_message_ids":["b1"]},{"id":"g3","example_message_ids":["c1"]}]}`))
	logFile := filepath.Join(t.TempDir(), "export.jsonl")
	os.WriteFile(logFile, []byte(`{"timestamp":`+strconv.FormatInt(now, 10)+`,"message":"failed b1"}`+"\n"+`{"timestamp":`+strconv.FormatInt(now, 10)+`,"message":"\tSkuNotFound: SKU-9123"}`+"\n"), 0o600)
	o := &LogsOptions{deps: d, Queue: dlq, LogFile: logFile, IDs: 3, Margin: time.Minute, Since: time.Hour, Context: 5, Method: "auto", Timeout: time.Minute}
	if err := runLogs(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var rep logsearch.Result
	if err := ws.ReadJSON("logs.json", &rep); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range rep.Messages {
		ids = append(ids, m.MessageID)
	}
	if diff := cmp.Diff([]string{"a2", "b1", "c1"}, ids); diff != "" {
		t.Errorf("messages searched (-want +got):\n%s", diff)
	}
	if !strings.Contains(out.String(), "\x1b[") || !strings.Contains(out.String(), "SkuNotFound: SKU-9123") {
		t.Errorf("TTY output without a highlighted exception:\n%q", out.String())
	}
	if !strings.Contains(out.String(), "a2  not found in "+logFile) || !strings.Contains(errOut.String(), "try a wider window (--margin 4m0s)") {
		t.Errorf("not-found answer missing:\nstdout %s\nstderr %s", out, errOut)
	}
	var doc map[string]any
	b, _ := os.ReadFile(ws.Path("logs.json"))
	json.Unmarshal(b, &doc)
	if doc["method"] != "file" || doc["found"] != 1.0 || doc["searched"] != 3.0 {
		t.Errorf("logs.json head: method %v found %v searched %v", doc["method"], doc["found"], doc["searched"])
	}
}

// TestLogsFoldsRepeatedTrace: a trace logged at each of three attempts
// (request IDs and times differ) shows once, with the count of the others;
// piped, the signature is classify's key as it is.
func TestLogsFoldsRepeatedTrace(t *testing.T) {
	var lines []string
	for _, req := range []string{"0b1e", "7c2f", "9a41"} {
		lines = append(lines, "START RequestId: "+req+" Version: $LATEST",
			"Traceback (most recent call last):", `  File "/var/task/orders.py", line 12, in parse`,
			"UnsupportedVersionError: version 2", "END RequestId: "+req)
	}
	lines = append(lines, "REPORT done")
	d, out, _ := cmdtest.Deps(t, false)
	o := &LogsOptions{deps: d}
	rep := &logsearch.Result{Searched: 1, Found: 1, Groups: []string{"g"}, Messages: []logsearch.Record{{MessageID: "m1", Found: true,
		Lines: lines, Exception: "UnsupportedVersionError: version 2", Signature: "UnsupportedVersionError: version <n>"}}}
	if err := o.render(rep); err != nil {
		t.Fatal(err)
	}
	want := `m1  
  START RequestId: 0b1e Version: $LATEST
  Traceback (most recent call last):
    File "/var/task/orders.py", line 12, in parse
  UnsupportedVersionError: version 2
  END RequestId: 0b1e
  … the 5 lines above again 2 more times (only ids, times and numbers differ)
  REPORT done
  exception: UnsupportedVersionError: version 2
  signature: UnsupportedVersionError: version <n>

`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

// TestLogsNotFoundTimes: a terminal reads the window of a message not found
// in UTC with its date; piped, RFC 3339 as before.
func TestLogsNotFoundTimes(t *testing.T) {
	from := time.Date(2026, 11, 29, 22, 4, 0, 0, time.UTC)
	rep := &logsearch.Result{Searched: 1, Groups: []string{"g"}, Messages: []logsearch.Record{{MessageID: "m1",
		Range: logsearch.Range{From: from, To: from.Add(time.Hour)}}}}
	for tty, want := range map[bool]string{
		true:  "m1  not found in groups g between 2026-11-29 22:04:00 UTC and 2026-11-29 23:04:00 UTC\n",
		false: "m1  not found in groups g between 2026-11-29T22:04:00Z and 2026-11-29T23:04:00Z\n",
	} {
		d, out, _ := cmdtest.Deps(t, tty)
		d.IO.Color = false
		if err := (&LogsOptions{deps: d}).render(rep); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("tty %v: %q, want %q", tty, out.String(), want)
		}
	}
}
