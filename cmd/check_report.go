package cmd

import (
	"fmt"
	"github.com/mfdlq/mfdlq/incident"

	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/vitals"
)

// checkReport is check's --output json and check.json.
type checkReport struct {
	Queue    string           `json:"queue"`
	Verdict  string           `json:"verdict"`
	Findings []vitals.Finding `json:"findings"`
}

// record writes check.json and appends the check event; the report's
// "what would have warned earlier" is filled from it.
func (o *checkOptions) record(dlq *sqsapi.Queue, rep *checkReport) error {
	d := o.deps
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return err
	}
	if err := ws.WriteJSON(incident.CheckFile, rep); err != nil {
		return err
	}
	counts := map[string]int{vitals.Pass: 0, vitals.Warn: 0, vitals.Fail: 0, vitals.Skip: 0}
	failed, warned := []string{}, []string{}
	for _, f := range rep.Findings {
		counts[f.Status]++
		switch f.Status {
		case vitals.Fail:
			failed = append(failed, f.ID)
		case vitals.Warn:
			warned = append(warned, f.ID)
		}
	}
	ev := d.Event("check", dlq)
	ev.Inputs = map[string]any{
		"create_alarm": o.CreateAlarm, "topic": o.Topic, "dry_run": o.DryRun,
		"sdk_attempts": o.SDKAttempts, "workflow_attempts": o.WorkflowAttempts, "read_timeout": o.ReadTimeout.String(),
	}
	ev.Figures = map[string]any{
		"pass": counts[vitals.Pass], "warn": counts[vitals.Warn], "fail": counts[vitals.Fail], "skip": counts[vitals.Skip],
		"failed": failed, "warned": warned,
	}
	ev.Verdict = rep.Verdict
	ev.Artifact = incident.CheckFile
	return ws.Append(ev)
}

func (o *checkOptions) render(rep *checkReport) error {
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
		t.Rows = append(t.Rows, []string{f.Status, f.ID, f.Queue, f.Message, fix})
	}
	if err := d.printTable(t); err != nil {
		return err
	}
	fmt.Fprintf(d.IO.ErrOut, "verdict: %s\n", rep.Verdict)
	return nil
}
