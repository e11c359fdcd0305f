package cmd

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/incident"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// record writes check.json and appends the check event; the report's
// "what would have warned earlier" is filled from it.
func (o *checkOptions) record(dlq *sqsapi.Queue, rep *check.Result, facts check.CheckInput) error {
	d := o.deps
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return err
	}
	if err := ws.WriteJSON(incident.CheckFile, rep); err != nil {
		return err
	}
	ev := d.Event("check", dlq)
	in := check.Inputs{CreateAlarm: o.CreateAlarm, Topic: o.Topic, DryRun: o.DryRun,
		SDKAttempts: o.SDKAttempts, WorkflowAttempts: o.WorkflowAttempts, ReadTimeout: o.ReadTimeout.String()}
	if err := ev.Set(in, check.FiguresOf(rep, facts)); err != nil {
		return err
	}
	ev.Verdict = string(rep.Verdict)
	ev.Artifact = incident.CheckFile
	return ws.Append(ev)
}

// render says the verdict and its counts first, then the findings: a table
// whose long fixes (a whole `aws …` command) are numbered under it on a
// terminal, or the rows as they are when piped.
func (o *checkOptions) render(rep *check.Result) error {
	d := o.deps
	if d.jsonOutput() {
		return d.printJSON(rep)
	}
	d.sayErr("verdict: " + checkVerdictText(rep))
	t := tableData{Headers: []string{"STATUS", "ID", "QUEUE", "FINDING", "FIX"}, Below: 5}
	for _, f := range rep.Findings {
		fix := f.Fix
		if fix == "" {
			fix = "-"
		}
		t.Rows = append(t.Rows, []string{string(f.Status), f.ID, f.Queue, f.Message, fix})
	}
	return d.printTable(t)
}

// checkVerdictText is the verdict with the count of each status, worst
// first: "fail — 3 fail, 1 warn, 2 skip, 1 pass".
func checkVerdictText(rep *check.Result) string {
	n := map[check.Status]int{}
	for _, f := range rep.Findings {
		n[f.Status]++
	}
	var parts []string
	for _, s := range []check.Status{check.Fail, check.Warn, check.Skip, check.Pass} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	if len(parts) == 0 {
		return string(rep.Verdict)
	}
	return string(rep.Verdict) + " — " + strings.Join(parts, ", ")
}
