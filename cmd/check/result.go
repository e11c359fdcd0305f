package check

import (
	"fmt"
	"strings"

	checkstep "github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/incident"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// record writes check.json and appends the check event; the report's
// "what would have warned earlier" is filled from it.
func (o *CheckOptions) record(dlq *sqsapi.Queue, rep *checkstep.Result, facts checkstep.CheckInput) error {
	d := o.deps
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return err
	}
	in := checkstep.Inputs{CreateAlarm: o.CreateAlarm, Topic: o.Topic, DryRun: o.DryRun,
		SDKAttempts: o.SDKAttempts, WorkflowAttempts: o.WorkflowAttempts, ReadTimeout: o.ReadTimeout.String()}
	return d.AppendStep(ws, dlq, "check", incident.CheckFile, rep, in, rep.Figures(facts), string(rep.Verdict))
}

// render says the verdict and its counts first, then the findings: a table
// whose long fixes (a whole `aws …` command) are numbered under it on a
// terminal, or the rows as they are when piped.
func (o *CheckOptions) render(rep *checkstep.Result) error {
	d := o.deps
	if d.JSONOutput() {
		return d.PrintJSON(rep)
	}
	d.SayErr("verdict: " + checkVerdictText(rep))
	t := cmdutil.TableData{Headers: []string{"STATUS", "ID", "QUEUE", "FINDING", "FIX"}, Below: 5}
	for _, f := range rep.Findings {
		fix := f.Fix
		if fix == "" {
			fix = "-"
		}
		t.Rows = append(t.Rows, []string{string(f.Status), f.ID, f.Queue, f.Message, fix})
	}
	return d.PrintTable(t)
}

// checkVerdictText is the verdict with the count of each status, worst
// first: "fail — 3 fail, 1 warn, 2 skip, 1 pass".
func checkVerdictText(rep *checkstep.Result) string {
	n := map[checkstep.Status]int{}
	for _, f := range rep.Findings {
		n[f.Status]++
	}
	var parts []string
	for _, s := range []checkstep.Status{checkstep.Fail, checkstep.Warn, checkstep.Skip, checkstep.Pass} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	if len(parts) == 0 {
		return string(rep.Verdict)
	}
	return string(rep.Verdict) + " — " + strings.Join(parts, ", ")
}
