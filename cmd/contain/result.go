package contain

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	containstep "github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/incident"

	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// measure reads the DLQ's trend and the source's age into rep and judges
// (containstep.Reader.Measure), and adds the DLQ's expiry countdown.
func (o *ContainOptions) measure(ctx context.Context, c sqsapi.Client, dlq, src *sqsapi.Queue, rep *containstep.Result) error {
	d := o.deps
	cw, err := d.CloudWatch(ctx)
	if err != nil {
		return err
	}
	r := containstep.Reader{CW: cw, SQS: c, Now: d.Now, SampleEvery: o.Sample / 2, Samples: 3, Warn: d.Warnf}
	if err := r.Measure(ctx, dlq, src, o.Window, rep); err != nil {
		return err
	}
	rep.OldestExpiry = d.OldestExpiry(ctx, dlq, nil)
	return nil
}

// record writes contain.json and appends the contain event.
func (o *ContainOptions) record(dlq *sqsapi.Queue, rep *containstep.Result) error {
	d := o.deps
	ws, err := d.Workspace(dlq.Name)
	if err != nil {
		return err
	}
	return d.AppendStep(ws, dlq, "contain", incident.ContainFile, rep, o.inputs(), rep.Figures(), string(rep.Verdict))
}

// render shows the report: JSON, or a table of the vital signs and one of
// the mappings, then the verdict.
func (o *ContainOptions) render(rep *containstep.Result) error {
	d := o.deps
	if d.JSONOutput() {
		return d.PrintJSON(rep)
	}
	// The verdict first, its reasons under it, the figures after: at 3
	// a.m. the first line is the one read.
	d.SayErr("verdict: " + rep.Verdict.Say())
	for _, r := range rep.Reasons {
		d.SayErr("  · " + untrusted.Terminal(r))
	}
	t := cmdutil.TableData{Headers: []string{"QUEUE", "ROLE", "VISIBLE", "IN FLIGHT", "TREND", "AGE OF OLDEST"}}
	dl := rep.DLQ
	trend := fmt.Sprintf("%s %.0f→%.0f (%+.2f/min, %s)", dl.Direction, dl.From, dl.To, dl.PerMinute, dl.Source)
	if dl.Direction == containstep.Unknown {
		trend = containstep.Unknown
	}
	t.Rows = append(t.Rows, []string{dl.Queue, "dlq", itoa(dl.Visible), itoa(dl.InFlight), trend, "-"})
	if s := rep.Source; s != nil {
		age := "no data"
		if s.AgeOfOldest != nil {
			age = fmt.Sprintf("%.0fs (normal %s)", *s.AgeOfOldest, secondsOrUnknown(s.NormalAge))
			if d.IO.OutTTY {
				age = fmt.Sprintf("%s (normally %s)", cmdutil.SecondsText(*s.AgeOfOldest), secondsSpoken(s.NormalAge))
			}
		}
		t.Rows = append(t.Rows, []string{s.Queue, "source", itoa(s.Visible), itoa(s.InFlight), "-", age})
	}
	if err := d.PrintTable(t); err != nil {
		return err
	}
	if len(rep.Mappings) > 0 {
		mt := cmdutil.TableData{Headers: []string{"MAPPING", "FUNCTION", "STATE", "BATCH", "MAX CONCURRENCY", "VISIBILITY"}}
		for _, m := range rep.Mappings {
			mc := "none"
			if m.MaximumConcurrency != nil {
				mc = strconv.Itoa(int(*m.MaximumConcurrency))
			}
			mt.Rows = append(mt.Rows, []string{m.UUID, m.Function, m.State, strconv.Itoa(int(m.BatchSize)), mc, m.VisibilityAssessment})
		}
		if err := d.PrintTable(mt); err != nil {
			return err
		}
	}
	return nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func secondsOrUnknown(f *float64) string {
	if f == nil {
		return "unknown"
	}
	return fmt.Sprintf("%.0fs", *f)
}

// secondsSpoken is cmdutil.SecondsText, or "unknown" without a figure.
func secondsSpoken(f *float64) string {
	if f == nil {
		return "unknown"
	}
	return cmdutil.SecondsText(*f)
}
