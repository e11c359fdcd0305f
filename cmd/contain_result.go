package cmd

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/incident"

	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// measure reads the DLQ's trend and the source's age into rep and judges.
func (o *containOptions) measure(ctx context.Context, c sqsapi.Client, dlq, src *sqsapi.Queue, rep *contain.Result) error {
	d := o.deps
	cw, err := d.CloudWatch(ctx)
	if err != nil {
		return err
	}
	r := contain.Reader{CW: cw, SQS: c, Now: d.Now, SampleEvery: o.Sample / 2, Samples: 3, Warn: d.warnf}
	trend, err := r.DepthTrend(ctx, dlq, o.Window)
	if err != nil {
		return fmt.Errorf("contain %s: %w", dlq.Name, err)
	}
	// A sampled trend's last look has just refreshed dlq's depth.
	if trend.Source != contain.FromSampling {
		if err := sqsapi.Refresh(ctx, c, dlq); err != nil {
			return fmt.Errorf("contain %s: %w", dlq.Name, err)
		}
	}
	rep.DLQ = contain.DLQVitals{Queue: dlq.Name, Visible: dlq.Depth.Visible, InFlight: dlq.Depth.InFlight, Trend: trend, Window: o.Window.String()}
	if src != nil {
		age, normal, err := r.SourceAge(ctx, src, o.Window, baselineSpan)
		if err != nil {
			return fmt.Errorf("contain %s: %w", src.Name, err)
		}
		rep.Source = &contain.SourceVitals{
			Queue: src.Name, Visible: src.Depth.Visible, InFlight: src.Depth.InFlight,
			AgeOfOldest: age, NormalAge: normal, AgeElevated: contain.AgeElevated(age, normal),
		}
	}
	rep.OldestExpiry = d.oldestExpiry(ctx, dlq, nil)
	rep.Alive, rep.Reasons = contain.Judge(rep.DLQ, rep.Source)
	rep.Verdict = contain.VerdictOf(rep.Alive)
	return nil
}

// record writes contain.json and appends the contain event.
func (o *containOptions) record(dlq *sqsapi.Queue, rep *contain.Result) error {
	d := o.deps
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return err
	}
	if err := ws.WriteJSON(incident.ContainFile, rep); err != nil {
		return err
	}
	ev := d.Event("contain", dlq)
	ev.Inputs = o.inputs()
	fig := map[string]any{
		"visible": rep.DLQ.Visible, "in_flight": rep.DLQ.InFlight, "trend": rep.DLQ.Direction,
		"trend_from": rep.DLQ.From, "trend_to": rep.DLQ.To, "trend_source": rep.DLQ.Source,
		"mappings": len(rep.Mappings),
	}
	if rep.Source != nil {
		fig["source"] = rep.Source.Queue
		fig["source_visible"] = rep.Source.Visible
		fig["age_of_oldest_seconds"] = rep.Source.AgeOfOldest
		fig["normal_age_of_oldest_seconds"] = rep.Source.NormalAge
	}
	expiryFigures(fig, rep.OldestExpiry)
	if rep.Change != nil {
		fig["mapping_action"] = rep.Change.Action
		fig["mapping_dry_run"] = rep.Change.DryRun
	}
	ev.Figures = fig
	ev.Verdict = string(rep.Verdict)
	ev.Artifact = incident.ContainFile
	return ws.Append(ev)
}

// render shows the report: JSON, or a table of the vital signs and one of
// the mappings, then the verdict.
func (o *containOptions) render(rep *contain.Result) error {
	d := o.deps
	if d.jsonOutput() {
		return d.printJSON(rep)
	}
	t := tableData{Headers: []string{"QUEUE", "ROLE", "VISIBLE", "IN FLIGHT", "TREND", "AGE OF OLDEST"}}
	dl := rep.DLQ
	trend := fmt.Sprintf("%s %.0f→%.0f (%+.2f/min, %s)", dl.Direction, dl.From, dl.To, dl.PerMinute, dl.Source)
	if dl.Direction == contain.Unknown {
		trend = contain.Unknown
	}
	t.Rows = append(t.Rows, []string{dl.Queue, "dlq", itoa(dl.Visible), itoa(dl.InFlight), trend, "-"})
	if s := rep.Source; s != nil {
		age := "no data"
		if s.AgeOfOldest != nil {
			age = fmt.Sprintf("%.0fs (normal %s)", *s.AgeOfOldest, secondsOrUnknown(s.NormalAge))
		}
		t.Rows = append(t.Rows, []string{s.Queue, "source", itoa(s.Visible), itoa(s.InFlight), "-", age})
	}
	if err := d.printTable(t); err != nil {
		return err
	}
	if len(rep.Mappings) > 0 {
		mt := tableData{Headers: []string{"MAPPING", "FUNCTION", "STATE", "BATCH", "MAX CONCURRENCY", "VISIBILITY"}}
		for _, m := range rep.Mappings {
			mc := "none"
			if m.MaximumConcurrency != nil {
				mc = strconv.Itoa(int(*m.MaximumConcurrency))
			}
			mt.Rows = append(mt.Rows, []string{m.UUID, m.Function, m.State, strconv.Itoa(int(m.BatchSize)), mc, m.VisibilityAssessment})
		}
		if err := d.printTable(mt); err != nil {
			return err
		}
	}
	for _, r := range rep.Reasons {
		fmt.Fprintf(d.IO.ErrOut, "  · %s\n", untrusted.Terminal(r))
	}
	fmt.Fprintf(d.IO.ErrOut, "verdict: %s\n", rep.Verdict.Say())
	return nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func secondsOrUnknown(f *float64) string {
	if f == nil {
		return "unknown"
	}
	return fmt.Sprintf("%.0fs", *f)
}
