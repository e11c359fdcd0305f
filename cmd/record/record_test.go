package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/report"
)

// copyIncident copies a testdata incident into a fresh directory.
func copyIncident(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", name)
	dst := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".golden.md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestRecordFlags(t *testing.T) {
	t.Setenv("MFDLQ_INCIDENT", "")
	tests := []struct {
		args     []string
		incident string
		want     RecordOptions
		wantErr  string
	}{
		{args: []string{"--cause", "c", "--change", "x", "--warning", "w", "--out", "r.md"}, incident: "inc",
			want: RecordOptions{Cause: "c", Change: "x", Warning: "w", Out: "r.md"}},
		{args: []string{"--queue", "orders-dlq", "--no-redact"}, want: RecordOptions{Queue: "orders-dlq", NoRedact: true}},
		{args: []string{"--queue", "orders-dlq", "--close"}, want: RecordOptions{Queue: "orders-dlq", Close: true}},
		{args: []string{}, wantErr: "no incident: pass --incident DIR (or --queue DLQ for its open incident)"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			d.Global.Incident = tc.incident
			cmdtest.CheckParse(t, func(runF func(*RecordOptions) error) *cobra.Command { return NewCmdRecord(d, runF) }, tc.args, tc.want, tc.wantErr, cmpopts.IgnoreUnexported(RecordOptions{}))
		})
	}
}

func TestRecordWritesTheReport(t *testing.T) {
	t.Setenv("USER", "oncall-ana")
	d, out, errOut := cmdtest.Deps(t, false)
	d.Global.Incident = copyIncident(t, "incident-deploy")
	d.Args = []string{"record", "--cause", "v2 before the consumer"}
	o := &RecordOptions{deps: d, Cause: "v2 before the consumer", Close: true}
	if err := runRecord(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(d.Global.Incident, incident.ReportFile)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if lines[len(lines)-1] != path {
		t.Errorf("last line %q, want the report's path %s", lines[len(lines)-1], path)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("report mode %v, want 0600", st.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	md := string(b)
	for _, want := range []string{"| operator | oncall-ana (login name; no AWS identity recorded) |", "| cause | v2 before the consumer |", "| change | consumer 1.8.0 accepts version 2 |",
		"no CloudWatch alarm", "`mfdlq record --cause 'v2 before the consumer'` — record, 03:00:00 UTC"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(md, "cliente0@example.com") || strings.Contains(md, "TODO") {
		t.Errorf("report holds an e-mail in clear or a TODO")
	}
	// Only the line that names the incident: no warning.
	if want := "incident: " + d.Global.Incident + " (--incident)\n"; errOut.String() != want {
		t.Errorf("stderr: %q, want %q", errOut, want)
	}
	ws, _ := incident.Existing(d.Global.Incident)
	ev, ok, _ := ws.Latest("record")
	fig := report.RecordFigures{TODO: -1}
	if !ok || ev.Queue != "orders-dlq" || ev.Artifact != incident.ReportFile || ev.DecodeFigures(&fig) != nil || fig.TODO != 0 {
		t.Errorf("record event = %+v, figures %+v", ev, fig)
	}
}

func TestRecordAsksOnATerminal(t *testing.T) {
	d, _, errOut := cmdtest.Deps(t, false)
	d.Global.Incident = copyIncident(t, "incident-partial")
	d.IO.InTTY = true
	d.IO.In = strings.NewReader("a bad deploy\n\nan alarm on the DLQ\n")
	o := &RecordOptions{deps: d, Out: filepath.Join(t.TempDir(), "r.md"), Close: true}
	if err := runRecord(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"What caused it?", "What was changed?", "What would have warned earlier?"} {
		if !strings.Contains(errOut.String(), q) {
			t.Errorf("not asked %q; stderr:\n%s", q, errOut)
		}
	}
	b, _ := os.ReadFile(o.Out)
	report := string(b)
	for _, want := range []string{"| cause | a bad deploy |", "\n- an alarm on the DLQ\n", "| change | **TODO** what was changed (`mfdlq record --fixed TEXT`) |"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if !strings.Contains(errOut.String(), "TODOs for --fixed") {
		t.Errorf("no TODO warning on stderr:\n%s", errOut)
	}
}

func TestRecordMissingIncident(t *testing.T) {
	d, _, _ := cmdtest.Deps(t, false)
	d.Global.Incident = filepath.Join(t.TempDir(), "nope")
	err := runRecord(t.Context(), &RecordOptions{deps: d})
	if cmdutil.ExitCode(err, false) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "does not exist: run the steps first") {
		t.Fatalf("err = %v (exit %d), want exit 2 naming the fix", err, cmdutil.ExitCode(err, false))
	}
	if _, statErr := os.Stat(d.Global.Incident); statErr == nil {
		t.Errorf("record created the missing incident directory")
	}
}
