package cmd

import (
	"fmt"

	"github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/incident"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// record writes check.json and appends the check event; the report's
// "what would have warned earlier" is filled from it.
func (o *checkOptions) record(dlq *sqsapi.Queue, rep *check.Result) error {
	d := o.deps
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return err
	}
	if err := ws.WriteJSON(incident.CheckFile, rep); err != nil {
		return err
	}
	counts := map[check.Status]int{check.Pass: 0, check.Warn: 0, check.Fail: 0, check.Skip: 0}
	failed, warned := []string{}, []string{}
	for _, f := range rep.Findings {
		counts[f.Status]++
		switch f.Status {
		case check.Fail:
			failed = append(failed, f.ID)
		case check.Warn:
			warned = append(warned, f.ID)
		}
	}
	ev := d.Event("check", dlq)
	ev.Inputs = map[string]any{
		"create_alarm": o.CreateAlarm, "topic": o.Topic, "dry_run": o.DryRun,
		"sdk_attempts": o.SDKAttempts, "workflow_attempts": o.WorkflowAttempts, "read_timeout": o.ReadTimeout.String(),
	}
	ev.Figures = map[string]any{
		string(check.Pass): counts[check.Pass], string(check.Warn): counts[check.Warn], string(check.Fail): counts[check.Fail], string(check.Skip): counts[check.Skip],
		"failed": failed, "warned": warned,
	}
	ev.Verdict = string(rep.Verdict)
	ev.Artifact = incident.CheckFile
	return ws.Append(ev)
}

func (o *checkOptions) render(rep *check.Result) error {
	d := o.deps
	if d.jsonOutput() {
		return d.printJSON(rep)
	}
	t := tableData{Headers: []string{"STATUS", "ID", "QUEUE", "FINDING", "FIX"}}
	for _, f := range rep.Findings {
		fix := f.Fix
		if fix == "" {
			fix = "-"
		}
		t.Rows = append(t.Rows, []string{string(f.Status), f.ID, f.Queue, f.Message, fix})
	}
	if err := d.printTable(t); err != nil {
		return err
	}
	fmt.Fprintf(d.IO.ErrOut, "verdict: %s\n", rep.Verdict)
	return nil
}
