package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/logsearch"

	"github.com/google/go-cmp/cmp"
)

var updateGolden = flag.Bool("update", false, "rewrite the report golden files in testdata/incident-*")

var reportNow = time.Date(2026, 11, 30, 3, 40, 0, 0, time.UTC)

// renderDir renders the report of a testdata incident.
func renderDir(t *testing.T, dir string, o ReportOptions) (string, ReportResult) {
	t.Helper()
	ws, err := incident.Existing(dir)
	if err != nil {
		t.Fatal(err)
	}
	inc, err := LoadIncident(ws)
	if err != nil {
		t.Fatal(err)
	}
	inc.Dir = "INCIDENT"
	var b bytes.Buffer
	res, err := inc.Render(&b, o)
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), res
}

func TestReportGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, dir, golden string
		opts              ReportOptions
	}{
		{"all steps", "../testdata/incident-deploy", "report.golden.md", ReportOptions{
			Cause:    "the producer deployed order schema version 2 before the consumer understood it",
			Warning:  "a contract test between producer and consumer",
			Operator: "alice", Now: reportNow,
			Command: []string{"mfdlq", "record", "--incident", "INCIDENT", "--cause", "…"},
		}},
		{"not redacted", "../testdata/incident-deploy", "report-noredact.golden.md", ReportOptions{
			Cause: "c", Change: "given change", Warning: "w", Operator: "alice", Now: reportNow, NoRedact: true,
		}},
		{"inspect only, todos", "../testdata/incident-partial", "report.golden.md", ReportOptions{Operator: "bob", Now: reportNow}},
		// A canary nothing consumed: the summary, the timeline and the
		// redrive section say the stop, the 9 left in the DLQ and what next.
		{"canary not consumed", "../testdata/incident-stopped", "report.golden.md", ReportOptions{Operator: "bob", Now: reportNow}},
		// An interrupted replay of a file: the unsent lines are in the file.
		{"replay interrupted", "../testdata/incident-replay-stopped", "report.golden.md", ReportOptions{Operator: "bob", Now: reportNow}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := renderDir(t, tt.dir, tt.opts)
			path := filepath.Join(tt.dir, tt.golden)
			if *updateGolden {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./runbook -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Fatalf("report differs from %s (-want +got):\n%s", path, diff)
			}
		})
	}
}

// TestReportRedactsBodiesAndLogs checks the report against the raw values
// the testdata incident holds, independently of the golden file.
func TestReportRedactsBodiesAndLogs(t *testing.T) {
	t.Parallel()
	got, res := renderDir(t, "../testdata/incident-deploy", ReportOptions{Now: reportNow})
	for _, secret := range []string{
		"cliente0@example.com", "cliente3@example.com", "612 345 000", "4111 1111 1111 1111",
		"5555-5555-5555-4444", "4242424242424242", "abcDEF1234567890xyz",
	} {
		if strings.Contains(got, secret) {
			t.Errorf("report holds %q in clear", secret)
		}
	}
	for _, kind := range []string{"email", "phone", "card", "token"} {
		if res.Redacted[kind] == 0 {
			t.Errorf("Redacted = %v: no %s counted", res.Redacted, kind)
		}
	}
	for _, want := range []string{"> Redacted:", "ord-104200", "340", "**poison**", "version=2", "UnsupportedVersionError"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	clear, res := renderDir(t, "../testdata/incident-deploy", ReportOptions{Now: reportNow, NoRedact: true})
	if !strings.Contains(clear, "cliente0@example.com") || res.Redacted != nil {
		t.Errorf("--no-redact report lacks the clear e-mail or counted redactions: %v", res.Redacted)
	}
}

func TestReportSections(t *testing.T) {
	t.Parallel()
	got, res := renderDir(t, "../testdata/incident-partial", ReportOptions{Now: reportNow})
	for _, step := range []string{"1. contain", "3. classify", "4. logs", "5. redrive", "6. verify"} {
		i := strings.Index(got, "## "+step)
		if i < 0 {
			t.Fatalf("no section %q", step)
		}
		if end := min(len(got), i+120); !strings.HasPrefix(got[i:], "## "+step) || !strings.Contains(got[i:end], "not run.") {
			t.Errorf("section %q does not say not run:\n%s", step, got[i:end])
		}
	}
	if !strings.Contains(got, "## 2. inspect") || strings.Contains(got[strings.Index(got, "## 2. inspect"):strings.Index(got, "## 3. classify")], "not run") {
		t.Errorf("inspect ran but its section says not run")
	}
	if diff := cmp.Diff([]string{"cause", "fixed", "warning"}, res.TODO); diff != "" {
		t.Errorf("TODO (-want +got):\n%s", diff)
	}
	if strings.Count(got, "**TODO**") != 3 {
		t.Errorf("want 3 visible TODOs")
	}
}

func TestRecordedChangeAndWarnings(t *testing.T) {
	t.Parallel()
	ws, _ := incident.Existing("../testdata/incident-deploy")
	inc, err := LoadIncident(ws)
	if err != nil {
		t.Fatal(err)
	}
	if got := inc.RecordedChange(); got != "consumer 1.8.0 accepts version 2" {
		t.Errorf("RecordedChange = %q", got)
	}
	w := inc.Warnings()
	if len(w) != 2 || !strings.Contains(w[0], "no CloudWatch alarm") {
		t.Errorf("Warnings = %q, want the two failed findings", w)
	}
}

func TestShellJoin(t *testing.T) {
	t.Parallel()
	got := ShellJoin([]string{"mfdlq", "redrive", "--fixed", "it's fixed", "--filter", `.version == 2`, "--rate", "10", ""})
	want := `mfdlq redrive --fixed 'it'"'"'s fixed' --filter '.version == 2' --rate 10 ''`
	if got != want {
		t.Errorf("ShellJoin = %s\nwant        %s", got, want)
	}
}

func TestArrivalChart(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC)
	var burst []time.Time
	for i := range 30 {
		burst = append(burst, base.Add(time.Duration(i)*time.Second))
	}
	burst = append(burst, base.Add(12*time.Minute))
	c := arrivalChart(burst)
	lines := strings.Split(strings.TrimSpace(c), "\n")
	if len(lines) != chartBins+3 {
		t.Fatalf("chart has %d lines:\n%s", len(lines), c)
	}
	if !strings.Contains(lines[1], strings.Repeat("#", chartWidth)+" 30") {
		t.Errorf("first row should hold the burst of 30 at full width:\n%s", c)
	}
	if !strings.HasSuffix(lines[chartBins], " 1") {
		t.Errorf("last row should hold the straggler:\n%s", c)
	}
	if one := arrivalChart([]time.Time{base}); !strings.Contains(one, "1 message over 0 s, 1 row") {
		t.Errorf("single time: %s", one)
	}
}

func TestHistogramChartCollapsesASubSecondSpan(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 22, 4, 0, 0, time.UTC)
	cols := make([]int, 48)
	cols[47] = 340
	got := histogramChart(cols, at, at.Add(200*time.Millisecond))
	if rows := strings.Count(got, " UTC |"); rows != 1 {
		t.Errorf("%d rows for a 200ms span; want 1:\n%s", rows, got)
	}
	if !strings.Contains(got, "340 messages") {
		t.Errorf("total missing:\n%s", got)
	}
	spread := histogramChart(cols, at, at.Add(107*time.Minute))
	if rows := strings.Count(spread, " UTC |"); rows < 2 {
		t.Errorf("%d rows for 107 minutes; want several:\n%s", rows, spread)
	}
}

func TestWarningsLeaveOutPassAndSkip(t *testing.T) {
	t.Parallel()
	inc := &Incident{Check: &check.Result{Findings: []check.Finding{
		{ID: "dlq-alarm", Status: "fail", Message: "no CloudWatch alarm on the DLQ", Fix: "mfdlq check --create-alarm --topic ARN"},
		{ID: "lambda-timeout", Status: "skip", Message: "no mapping reads the source"},
		{ID: "retention", Status: "pass", Message: "DLQ keeps messages longer than the source"},
		{ID: "max-receive", Status: "warn", Message: "worst case 18 attempts per dependency"},
	}}}
	got := inc.Warnings()
	if len(got) != 2 || !strings.Contains(got[0], "no CloudWatch alarm") || !strings.HasPrefix(got[1], "warning: ") || !strings.HasPrefix(got[0], "failed check: ") {
		t.Errorf("Warnings = %q; want the fail and the warn only", got)
	}
}

func TestLogsSectionGroupsBySignature(t *testing.T) {
	t.Parallel()
	inc := &Incident{Logs: &logsearch.Result{Method: logsearch.MethodFile, LogFile: "f.log", Searched: 4, Found: 3, Messages: []logsearch.Record{
		{MessageID: "m3", Found: true, Signature: "SkuNotFound: SKU-<n>", Exception: "SkuNotFound: SKU-9", Lines: []string{"m3 failed", "SkuNotFound: SKU-9"}},
		{MessageID: "m2", Found: true, Signature: "UnsupportedVersionError: version <n>", Exception: "UnsupportedVersionError: version 2", Lines: []string{"m2 failed", "UnsupportedVersionError: version 2"}},
		{MessageID: "m1", Found: true, Signature: "UnsupportedVersionError: version <n>", Exception: "UnsupportedVersionError: version 2", Lines: []string{"m1 failed", "UnsupportedVersionError: version 2"}},
		{MessageID: "m4"},
	}}}
	var b strings.Builder
	inc.writeLogs(&b, incident.Event{})
	got := b.String()
	for _, want := range []string{
		"Searched 4 messages in f.log (file): found 3.",
		"### `UnsupportedVersionError: version 2` — 2 messages\n\n- messages: `m1`, `m2`\n- excerpt of `m1`",
		"### `SkuNotFound: SKU-9` — 1 message\n\n- message: `m3`",
		"No log lines found for: m4",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("logs section lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "m2 failed") || strings.Contains(got, "<n>") || strings.Index(got, "UnsupportedVersionError: version 2") > strings.Index(got, "SkuNotFound") {
		t.Errorf("want one excerpt per signature, the larger group first:\n%s", got)
	}
}

// TestReportOpensWithTheIncident: one screen first — the answer in
// words, the numbers, the timeline and what to change — then the
// appendix; each fact said once, in words and UTC times, and no raw
// inputs or figures line left in any report.
func TestReportOpensWithTheIncident(t *testing.T) {
	t.Parallel()
	got, _ := renderDir(t, "../testdata/incident-deploy", ReportOptions{Cause: "v2 first", Operator: "alice", Now: reportNow,
		Command: []string{"mfdlq", "record", "--cause", "v2 first"}})
	cut := strings.Index(got, "\n---\n")
	if cut < 0 {
		t.Fatalf("no appendix rule:\n%s", got)
	}
	screen, appendix := got[:cut], got[cut:]
	if n := strings.Count(screen, "\n"); n > 45 {
		t.Errorf("the first screen is %d lines; want at most 45:\n%s", n, screen)
	}
	sections := regexp.MustCompile(`(?m)^## .*$`).FindAllString(screen, -1)
	if diff := cmp.Diff([]string{"## Timeline", "## What to change"}, sections); diff != "" {
		t.Errorf("first screen's sections (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		"\n**Poison:** the messages fail however often they are retried, until the consumer or the messages change. They were redriven and verify passed: the fix held.\n",
		"| messages | 340 in orders-dlq (visible at contain) |", "| cause | v2 first |", "| change | consumer 1.8.0 accepts version 2 |",
		"| redrive | moved 340 messages to orders at 10 msg/s in 34 s (9.9 msg/s achieved) |",
		"| verify | **pass** — none of the 340 moved messages came back; 0 left in the DLQ |",
		"| alarm | an alarm on orders-dlq > 0 would have fired at about 2026-11-29 22:09 UTC, 4 h 41 min before this incident began (approximate: ",
		"| 02:50:00 | contain: **not alive** — 340 visible in the DLQ, stable |",
		"- failed check: no CloudWatch alarm on orders-dlq's ApproximateNumberOfMessagesVisible — fix: mfdlq check",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("first screen lacks %q:\n%s", want, screen)
		}
	}
	if !strings.Contains(appendix, "# Appendix") || !strings.Contains(appendix, "| operator | alice (login name; no AWS identity recorded) |") {
		t.Errorf("appendix lacks its heading or the operator:\n%s", appendix)
	}
	// Said once: the redrive command (fix + redrive), the warnings, the
	// fix, the operator.
	for _, once := range []string{"`mfdlq redrive --queue orders-dlq --fixed", "ApproximateNumberOfMessagesVisible", "alice", "moved 340 messages to orders at", "none of the 340 moved messages came back", "verdict"} {
		if n := strings.Count(strings.ToLower(got), strings.ToLower(once)); n != 1 {
			t.Errorf("%q is in the report %d times; want once", once, n)
		}
	}
	// Words and units, not raw values; no time after the report's own.
	for _, raw := range []string{"not_alive", "not_proven", "T02:50:00Z", "34.2s", "1h47m0s", "3m0s"} {
		if strings.Contains(got, raw) {
			t.Errorf("report holds the raw value %q", raw)
		}
	}
	for _, dir := range []string{"../testdata/incident-deploy", "../testdata/incident-partial"} {
		md, _ := renderDir(t, dir, ReportOptions{Now: reportNow})
		if m := regexp.MustCompile(`(?m)^- (inputs|figures|ran|command):`).FindString(md); m != "" {
			t.Errorf("%s: report holds a raw event line %q", dir, m)
		}
	}
}

// TestTimelineStopsAtTheReport: an alarm time later than the report (the
// demo's report, written minutes after the first failure) is no row of
// the timeline; the table says it as a delay.
func TestTimelineStopsAtTheReport(t *testing.T) {
	t.Parallel()
	first := time.Date(2026, 11, 30, 3, 30, 0, 0, time.UTC)
	inc := &Incident{
		Events:         []incident.Event{{Step: incident.StepContain, Queue: "orders-dlq", Time: first.Add(time.Minute)}},
		Classification: &classify.Classification{Messages: 3, FirstSent: &first, LastSent: &first},
		now:            first.Add(2 * time.Minute),
	}
	var b strings.Builder
	inc.writeTimeline(&b)
	if strings.Contains(b.String(), "would have fired") || strings.Count(b.String(), "first failure") != 1 || strings.Contains(b.String(), "latest message") {
		t.Errorf("timeline:\n%s", b.String())
	}
	for _, row := range strings.Split(strings.TrimSpace(b.String()), "\n")[4:] {
		at, err := time.Parse("15:04:05", strings.Fields(row)[1])
		if err != nil || at.Hour()*60+at.Minute() > 3*60+32 {
			t.Errorf("row %q: after the report's 03:32 (%v)", row, err)
		}
	}
	var s strings.Builder
	inc.writeSummary(&s, ReportOptions{}, &ReportResult{})
	if !strings.Contains(s.String(), "would have fired about 5 min after the first failure") {
		t.Errorf("summary:\n%s", s.String())
	}
}

// TestOperatorIsOneIdentity: the STS caller the redrive recorded, in
// words, once; the login name only without one; several identities are
// said to be several, and the runs table names each.
func TestOperatorIsOneIdentity(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ arn, want string }{
		{"arn:aws:sts::123456789012:assumed-role/oncall/alice", "alice (role oncall, account 123456789012)"},
		{"arn:aws:sts::123456789012:user/moto", "moto (IAM user, account 123456789012)"},
		{"arn:aws:iam::123456789012:root", "the root user of account 123456789012"},
		{"not an arn", "not an arn"},
	} {
		if got := callerWords(tt.arn); got != tt.want {
			t.Errorf("callerWords(%q) = %q, want %q", tt.arn, got, tt.want)
		}
	}
	inc := &Incident{Operators: map[string]string{"r1": "arn:aws:sts::123456789012:assumed-role/oncall/alice"}}
	if got := inc.operatorIdentity("root"); got != "alice (role oncall, account 123456789012)" {
		t.Errorf("operator = %q; want the STS caller, not the login name", got)
	}
	inc.Operators["r2"] = "arn:aws:sts::123456789012:assumed-role/oncall/bob"
	if got := inc.operatorIdentity("root"); !strings.Contains(got, "and 1 other (") {
		t.Errorf("operator of two identities = %q", got)
	}
	if got := (&Incident{}).operatorIdentity("root"); got != "root (login name; no AWS identity recorded)" {
		t.Errorf("operator without AWS identity = %q", got)
	}
}
