package triage

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	triagestep "github.com/mfdlq/mfdlq/triage"
)

func TestTriageFlags(t *testing.T) {
	base := TriageOptions{Request: triagestep.Request{Queue: "q", Window: 30 * time.Minute, Sample: 10 * time.Second, Peek: 100}}
	with := func(f func(*TriageOptions)) TriageOptions { o := base; f(&o); return o }
	tests := []struct {
		args    string
		want    TriageOptions
		wantErr string
	}{
		{args: "--queue q", want: base},
		{args: "--queue q --window 2h --sample 1s --peek 20 --log-group /aws/lambda/a --log-group /aws/lambda/b --no-changes --force", want: with(func(o *TriageOptions) {
			o.Window, o.Sample, o.Peek, o.LogGroups, o.NoChanges, o.Force = 2*time.Hour, time.Second, 20, []string{"/aws/lambda/a", "/aws/lambda/b"}, true, true
		})},
		{args: "", wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: "--queue q --window 4m", wantErr: "--window must be between 5m and 336h, got 4m0s"},
		{args: "--queue q --sample 6m", wantErr: "--sample must be between 1s and 5m, got 6m0s"},
		{args: "--queue q --peek 0", wantErr: "--peek must be between 1 and 1000, got 0"},
		{args: "--queue q --peek 1001", wantErr: "--peek must be between 1 and 1000, got 1001"},
		{args: "--queue q --log-group=", wantErr: "--log-group is empty: name a log group such as /aws/lambda/orders"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			cmdtest.CheckParse(t, func(runF func(*TriageOptions) error) *cobra.Command { return NewCmdTriage(d, runF) }, strings.Fields(tc.args), tc.want, tc.wantErr, cmpopts.IgnoreUnexported(TriageOptions{}))
		})
	}
}

// TestTriageLinesBounded: whatever the result holds — many groups, long
// reasons, every part skipped, a hostile signature — the answer is at most
// 12 lines, the next step and the incident always among them, and no
// control or bidi character reaches the terminal.
func TestTriageLinesBounded(t *testing.T) {
	r := &triagestep.Result{Verdict: classify.VerdictMixed, Alive: true, Messages: 5000, Queue: "orders-dlq", Sampled: 100,
		Reasons: []string{"one", "two", "three"}, Logs: &triagestep.LogsFound{Searched: 3, Found: 1, Exception: "Boom\x1b[31m\u202e"},
		Changes: &triagestep.ChangesFound{Verdict: "change", Nearest: strings.Repeat("x", 1000)}, Next: "mfdlq contain --queue orders-dlq --pause-mapping",
		Incident: "incidents/orders-dlq-20261207T0500Z"}
	for i := range 40 {
		r.Groups = append(r.Groups, triagestep.Group{ID: "g" + string(rune('a'+i%26)), Verdict: classify.VerdictPoison, Count: 1, Signature: "sig\x1b]52;c;aGk=\x07"})
	}
	for range 5 {
		r.Skipped = append(r.Skipped, triagestep.Skip{Step: "logs", Reason: "no log group"})
	}
	lines := triageLines(r, 0)
	if len(lines) > maxTriageLines {
		t.Fatalf("%d lines, want at most %d:\n%s", len(lines), maxTriageLines, strings.Join(lines, "\n"))
	}
	if !strings.HasPrefix(lines[0], "MIXED · ALIVE · 5000 messages in orders-dlq") {
		t.Errorf("first line %q: the answer comes first", lines[0])
	}
	if got := lines[len(lines)-2]; got != "next:     "+r.Next {
		t.Errorf("next line %q", got)
	}
	for _, l := range lines {
		if strings.ContainsAny(l, "\x1b\x07\u202e") {
			t.Errorf("line %q holds a control or bidi character", l)
		}
		if len([]rune(l)) > 200 {
			t.Errorf("line of %d characters: %.60q…", len([]rune(l)), l)
		}
	}
}

// TestTriageFitsATerminal: on a terminal of 100 columns the answer takes
// at most 12 rows — each line but next and incident cut to the width,
// next said whole and its wrapped rows counted, the lines that do not fit
// left out — and the next step and the incident are always there.
func TestTriageFitsATerminal(t *testing.T) {
	long := "java.lang.IllegalStateException: " + strings.Repeat("a long message ", 12)
	r := &triagestep.Result{Verdict: classify.VerdictMixed, Messages: 8, Queue: "orders-dlq", Sampled: 8,
		Reasons:  []string{"orders-dlq is stable at 8 messages, visible + in flight + delayed (sampled) and " + long, "orders's age of oldest message: no CloudWatch data"},
		Logs:     &triagestep.LogsFound{Searched: 3, Found: 1, Exception: long},
		Changes:  &triagestep.ChangesFound{Verdict: "unknown", Unread: []string{"cloudtrail", "alarm-history"}},
		Skipped:  []triagestep.Skip{{Step: "logs", Reason: "no log group: pass --log-group (no Lambda mapping reads the source)"}},
		Next:     "do not redrive on timing alone: find the consumer's exception (mfdlq logs --queue orders-dlq --log-group LOG_GROUP) or prove the content (classify again with --expect FIELD=VALUE or --baseline FILE)",
		Incident: "/home/oncall/.local/state/mfdlq/incidents/orders-dlq-20261207T0633Z"}
	for i := range 4 {
		r.Groups = append(r.Groups, triagestep.Group{ID: fmt.Sprintf("g%d", i+1), Verdict: classify.VerdictUnknown, Count: 4 - i, Signature: long})
	}
	for _, width := range []int{100, 80, 40} {
		lines := triageLines(r, width)
		rows := 0
		for _, l := range lines {
			n := utf8.RuneCountInString(l)
			rows += max(1, (n+width-1)/width)
			if n > width && !strings.HasPrefix(l, "next:") && !strings.HasPrefix(l, "incident:") {
				t.Errorf("width %d: a line of %d columns: %q", width, n, l)
			}
		}
		if rows > maxTriageLines {
			t.Errorf("width %d: %d rows, want at most %d:\n%s", width, rows, maxTriageLines, strings.Join(lines, "\n"))
		}
		if len(lines) < 3 || lines[len(lines)-2] != "next:     "+r.Next || lines[len(lines)-1] != "incident: "+r.Incident || !strings.HasPrefix(lines[0], "MIXED") {
			t.Errorf("width %d: the answer, next and incident are not all there:\n%s", width, strings.Join(lines, "\n"))
		}
	}
}
