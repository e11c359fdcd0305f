package cmdutil_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
)

// checkLikeTable is check's shape with its widest cells: a FIX holding a
// whole aws command, a FINDING of a sentence.
func checkLikeTable() cmdutil.TableData {
	return cmdutil.TableData{Headers: []string{"STATUS", "ID", "QUEUE", "FINDING", "FIX"}, Below: 5, Rows: [][]string{
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
			d, out, _ := cmdtest.Deps(t, true)
			if err := d.PrintTable(checkLikeTable()); err != nil {
				t.Fatal(err)
			}
			width := d.TermWidth()
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
	d, out, _ := cmdtest.Deps(t, false)
	if err := d.PrintTable(checkLikeTable()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\t-\n") || !strings.Contains(out.String(), "GreaterThanThreshold --alarm-actions TOPIC_ARN\n") || strings.Contains(out.String(), "below") {
		t.Errorf("piped rows changed:\n%s", out)
	}
}

// TestPrintTableNarrowUnchanged: a table that fits is drawn as before, not
// widened to the terminal.
func TestPrintTableNarrowUnchanged(t *testing.T) {
	tb := cmdutil.TableData{Headers: []string{"A", "B"}, Rows: [][]string{{"1", "2"}}}
	t.Setenv("COLUMNS", "")
	d, unsized, _ := cmdtest.Deps(t, true)
	if err := d.PrintTable(tb); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MFDLQ_FORCE_TTY", "1")
	t.Setenv("COLUMNS", "120")
	d, sized, _ := cmdtest.Deps(t, true)
	if err := d.PrintTable(tb); err != nil {
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
		if got := cmdutil.WrapText(tc.s, tc.width, "   "); got != tc.want {
			t.Errorf("cmdutil.WrapText(%q, %d) = %q, want %q", tc.s, tc.width, got, tc.want)
		}
	}
}

// TestNoteTextCommand: a command under a table is broken into lines a
// shell reads as one (" \" at each break), none wider than the terminal.
func TestNoteTextCommand(t *testing.T) {
	got := cmdutil.NoteText("3. ", "aws cloudwatch put-metric-alarm --alarm-name a --namespace AWS/SQS", 40)
	want := "3. aws cloudwatch put-metric-alarm \\\n   --alarm-name a --namespace AWS/SQS"
	if got != want {
		t.Errorf("noteText = %q, want %q", got, want)
	}
	if got := cmdutil.NoteText("4. ", "set the queue's retention to 14 days, then check again", 30); strings.Contains(got, "\\") {
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
	d, _, _ := cmdtest.Deps(t, true)
	got := d.FitText(in)
	want := "  arrivals     █   ▂  x\n  · evidence word evidence word evidence word evidence\n    word evidence word evidence word evidence word evidence\n    word end\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fitText (-want +got):\n%s", diff)
	}
	for _, l := range strings.Split(got, "\n") {
		if lipgloss.Width(l) > 60 {
			t.Errorf("line of %d columns: %q", lipgloss.Width(l), l)
		}
	}
	piped, _, _ := cmdtest.Deps(t, false)
	if got := piped.FitText(in); got != in {
		t.Errorf("piped text changed: %q", got)
	}
}
