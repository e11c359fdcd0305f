package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/cmd/runbook"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// runRunbookCmd runs mfdlq runbook with args and cmd's steps.
func runRunbookCmd(d *cmdutil.Deps, args ...string) error {
	c := runbook.NewCmdRunbook(d, runbookStep, nil)
	c.SetArgs(args)
	return c.ExecuteContext(context.Background())
}

// readReport returns the report the runbook wrote into the incident.
func readReport(t *testing.T, d *cmdutil.Deps) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(d.Global.Incident, incident.ReportFile))
	if err != nil {
		t.Fatalf("no report: %v", err)
	}
	return string(b)
}

// Without a terminal and without --yes the runbook looks but never moves:
// the redrive refuses, the runbook stops with exit 3, the report is written
// and the DLQ holds every message.
func TestRunbookStopsBeforeAnUnconfirmedChange(t *testing.T) {
	t.Parallel()
	dlq := seedDLQ(t, 5)
	d, out, errOut := testDeps(t, false)
	err := runRunbookCmd(d, "--queue", dlq, "--fixed", "parser accepts v2")
	if cmdutil.ExitCode(err, false) != cmdutil.ExitCheckFailed {
		t.Fatalf("err = %v (exit %d), want exit 3\nstderr:\n%s", err, cmdutil.ExitCode(err, false), errOut)
	}
	for _, want := range []string{"runbook stopped: redrive: nothing changed: no terminal to ask on", "what to do:", "── step 7/7: record — what happened and what we learned ──"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; last != filepath.Join(d.Global.Incident, incident.ReportFile) {
		t.Errorf("last line %q, want the report's path", last)
	}
	report := readReport(t, d)
	// The report escapes the ">" that a check finding holds: it is data.
	for _, want := range []string{"## 2. inspect", "| change | parser accepts v2 |", "`mfdlq inspect --queue " + dlq + " --max 100 --rows 10`", "## 6. verify — did the fix hold?\n\nnot run.",
		"`mfdlq check --queue " + dlq + "`", `no CloudWatch alarm on ApproximateNumberOfMessagesVisible \> 0`} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	v, f, err := localaws.NewSeeder(localaws.Config(t)).Depth(context.Background(), mustURL(t, dlq))
	if err != nil || v+f != 5 {
		t.Fatalf("DLQ holds %d visible + %d in flight (%v), want 5: the runbook moved messages it was not allowed to", v, f, err)
	}
}

// On a terminal the operator can quit before the first step; the report is
// still written and says every step was not run.
func TestRunbookOperatorQuits(t *testing.T) {
	dlq := seedDLQ(t, 1)
	d, _, errOut := testDeps(t, false)
	d.IO.InTTY = true
	d.IO.In = strings.NewReader("q\n\n\n\n")
	err := runRunbookCmd(d, "--queue", dlq)
	if cmdutil.ExitCode(err, false) != cmdutil.ExitCheckFailed || !strings.Contains(errOut.String(), "you stopped it before contain") {
		t.Fatalf("err = %v, stderr:\n%s", err, errOut)
	}
	report := readReport(t, d)
	// The seven step sections of the appendix (the fix has none: the
	// first screen's change row and the timeline say it).
	if got := strings.Count(report, "not run."); got != 7 {
		t.Errorf("%d sections say not run, want 7:\n%s", got, report)
	}
}

func mustURL(t *testing.T, name string) string {
	t.Helper()
	out, err := localaws.NewSeeder(localaws.Config(t)).SQS.GetQueueUrl(context.Background(), getURL(name))
	if err != nil {
		t.Fatal(err)
	}
	return *out.QueueUrl
}
