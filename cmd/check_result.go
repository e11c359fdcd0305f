package cmd

import (
	"fmt"

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

func (o *checkOptions) render(rep *check.Result) error {
	d := o.deps
	if d.jsonOutput() {
		return d.printJSON(rep)
	}
	t := tableData{Headers: []string{"STATUS", "ID", "QUEUE", "FINDING", "FIX"}, Below: []int{4}}
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
