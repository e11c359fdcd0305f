package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/logsearch"
)

// checkLikeTable is check's shape with its widest cells: a FIX holding a
// whole aws command, a FINDING of a sentence.
func checkLikeTable() tableData {
	return tableData{Headers: []string{"STATUS", "ID", "QUEUE", "FINDING", "FIX"}, Below: 5, Rows: [][]string{
		{"fail", "dlq-alarm", "orders-dlq", "no CloudWatch alarm on ApproximateNumberOfMessagesVisible > 0", "mfdlq check --queue orders-dlq --create-alarm --topic ARN"},
		{"skip", "visibility-vs-function-timeout", "orders", "no Lambda event source mapping reads this queue", "-"},
		{"warn", "source-age-alarm", "orders", "no alarm with an action on ApproximateAgeOfOldestMessage: a stuck consumer is seen only when the DLQ fills",
			"aws cloudwatch put-metric-alarm --alarm-name orders-oldest-message --namespace AWS/SQS --metric-name ApproximateAgeOfOldestMessage --dimensions Name=QueueName,Value=orders --statistic Maximum --period 300 --evaluation-periods 1 --threshold 900 --comparison-operator GreaterThanThreshold --alarm-actions TOPIC_ARN"},
	}}
}

// TestPrintTableFitsTerminal: at 100 and 120 columns no line of a table
// (nor of the fixes under it) is wider than the terminal, every row is
// still there, the long fixes are numbered under it and the piped rows
// keep them in place.
func TestPrintTableFitsTerminal(t *testing.T) {
	for _, cols := range []string{"100", "120"} {
		t.Run(cols, func(t *testing.T) {
			t.Setenv("MFDLQ_FORCE_TTY", "1")
			t.Setenv("COLUMNS", cols)
			d, out, _ := testDeps(t, true)
			if err := d.printTable(checkLikeTable()); err != nil {
				t.Fatal(err)
			}
			width := d.termWidth()
			for _, l := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
				if w := lipgloss.Width(l); w > width {
					t.Errorf("line of %d columns at %d: %q", w, width, l)
				}
			}
			for _, want := range []string{"dlq-alarm", "visibility-vs", "source-age-alarm", "see 1 below", "see 2 below",
				"1. mfdlq check --queue orders-dlq --create-alarm --topic ARN", "2. aws cloudwatch put-metric-alarm", "--alarm-actions TOPIC_ARN"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("no %q in\n%s", want, out)
				}
			}
		})
	}
	t.Setenv("MFDLQ_FORCE_TTY", "1")
	t.Setenv("COLUMNS", "100")
	d, out, _ := testDeps(t, false)
	if err := d.printTable(checkLikeTable()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\t-\n") || !strings.Contains(out.String(), "GreaterThanThreshold --alarm-actions TOPIC_ARN\n") || strings.Contains(out.String(), "below") {
		t.Errorf("piped rows changed:\n%s", out)
	}
}

// TestPrintTableNarrowUnchanged: a table that fits is drawn as before, not
// widened to the terminal.
func TestPrintTableNarrowUnchanged(t *testing.T) {
	tb := tableData{Headers: []string{"A", "B"}, Rows: [][]string{{"1", "2"}}}
	t.Setenv("COLUMNS", "")
	d, unsized, _ := testDeps(t, true)
	if err := d.printTable(tb); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MFDLQ_FORCE_TTY", "1")
	t.Setenv("COLUMNS", "120")
	d, sized, _ := testDeps(t, true)
	if err := d.printTable(tb); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(unsized.String(), sized.String()); diff != "" {
		t.Errorf("a narrow table changed at 120 columns (-0 +120):\n%s", diff)
	}
}

func TestWrapText(t *testing.T) {
	tests := []struct {
		s     string
		width int
		want  string
	}{
		{"1. aws sqs purge", 0, "1. aws sqs purge"},
		{"1. aws sqs purge-queue --queue-url URL", 20, "1. aws sqs\n   purge-queue\n   --queue-url URL"},
		{"2. abcdefghijklmnopqrstuvwxyz", 12, "2.\n   abcdefghi\n   jklmnopqr\n   stuvwxyz"},
	}
	for _, tc := range tests {
		if got := wrapText(tc.s, tc.width, "   "); got != tc.want {
			t.Errorf("wrapText(%q, %d) = %q, want %q", tc.s, tc.width, got, tc.want)
		}
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
	d, out, _ := testDeps(t, false)
	o := &logsOptions{deps: d}
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

// TestGroupActionNoPlaceholder: an action quoting a signature quotes one
// real error text of the group instead; without one, the placeholders are
// said in words.
func TestGroupActionNoPlaceholder(t *testing.T) {
	sig := "<n>: payment-gateway returned <n> Service Unavailable"
	g := classify.Group{Signature: sig, Error: "503: payment-gateway returned 503 Service Unavailable", DistinctErrors: 3,
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

// TestNoteTextCommand: a command under a table is broken into lines a
// shell reads as one (" \" at each break), none wider than the terminal.
func TestNoteTextCommand(t *testing.T) {
	got := noteText("3. ", "aws cloudwatch put-metric-alarm --alarm-name a --namespace AWS/SQS", 40)
	want := "3. aws cloudwatch put-metric-alarm \\\n   --alarm-name a --namespace AWS/SQS"
	if got != want {
		t.Errorf("noteText = %q, want %q", got, want)
	}
	if got := noteText("4. ", "set the queue's retention to 14 days, then check again", 30); strings.Contains(got, "\\") {
		t.Errorf("a sentence got shell continuations: %q", got)
	}
}

// TestFitText: on a terminal of 60 columns a long line wraps under its own
// indent, a short one (its inner spaces, a sparkline's blanks) stays as
// it is; piped, nothing changes.
func TestFitText(t *testing.T) {
	t.Setenv("MFDLQ_FORCE_TTY", "1")
	t.Setenv("COLUMNS", "60")
	in := "  arrivals     █   ▂  x\n  · " + strings.Repeat("evidence word ", 8) + "end\n"
	d, _, _ := testDeps(t, true)
	got := d.fitText(in)
	want := "  arrivals     █   ▂  x\n  · evidence word evidence word evidence word evidence\n    word evidence word evidence word evidence word evidence\n    word end\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fitText (-want +got):\n%s", diff)
	}
	for _, l := range strings.Split(got, "\n") {
		if lipgloss.Width(l) > 60 {
			t.Errorf("line of %d columns: %q", lipgloss.Width(l), l)
		}
	}
	piped, _, _ := testDeps(t, false)
	if got := piped.fitText(in); got != in {
		t.Errorf("piped text changed: %q", got)
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
		d, out, _ := testDeps(t, tty)
		d.IO.Color = false
		if err := (&logsOptions{deps: d}).render(rep); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("tty %v: %q, want %q", tty, out.String(), want)
		}
	}
}
