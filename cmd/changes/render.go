package changes

import (
	"fmt"
	"strings"
	"time"

	changesstep "github.com/mfdlq/mfdlq/changes"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/untrusted"
)

// render shows the kept events, the alarms and the chart on stdout, and the
// window, the noise, the nearest change and what could not be read on
// stderr. Every name, user and reason came from the trail: the table
// sanitises its cells and infof its arguments.
func (o *ChangesOptions) render(res *changesstep.Result) error {
	d := o.deps
	if d.JSONOutput() {
		return d.PrintJSON(res)
	}
	// The answer first: the nearest change, then what it was found among.
	if res.Evidence != "" {
		d.Infof("nearest: %s", terminalEvidence(res))
	}
	tty := d.IO.OutTTY
	stamp := func(t time.Time) string {
		if tty {
			return cmdutil.UTCText(t, d.Now())
		}
		return t.Format(time.RFC3339)
	}
	t := cmdutil.TableData{Headers: []string{"TIME", "WHEN", "KIND", "EVENT", "RESOURCE", "USER", "WHY"}}
	for _, e := range res.Events {
		e := e.Shortened(maxCell)
		t.Rows = append(t.Rows, []string{stamp(e.Time), offsetText(e.Offset), string(e.Relation), e.Name, e.Resource, e.User, e.Reason})
	}
	if err := d.PrintTable(t); err != nil {
		return err
	}
	if len(res.Alarms) > 0 {
		a := cmdutil.TableData{Headers: []string{"TIME", "WHEN", "ALARM", "METRIC", "WATCHES"}}
		for _, al := range res.Alarms {
			watches := "dependency " + al.Dependency
			if al.Own {
				watches = "this queue or its consumer"
			}
			a.Rows = append(a.Rows, []string{stamp(al.Time), offsetText(al.Offset), short(al.Name), short(strings.TrimSpace(al.Namespace + " " + al.Metric)), short(watches)})
		}
		fmt.Fprintln(d.IO.Out)
		if err := d.PrintTable(a); err != nil {
			return err
		}
	}
	var chart strings.Builder
	chart.WriteString("\n")
	for _, l := range chartLines(res, tty) {
		chart.WriteString(untrusted.Terminal(l) + "\n")
	}
	if _, err := fmt.Fprint(d.IO.Out, cutToWidth(d, chart.String())); err != nil {
		return err
	}
	o.summary(res)
	return nil
}

// summary says on stderr what was read, dropped and found.
func (o *ChangesOptions) summary(res *changesstep.Result) {
	d := o.deps
	related, deploys := 0, 0
	for _, e := range res.Events {
		if e.Relation == changesstep.Related {
			related++
		} else {
			deploys++
		}
	}
	unread := map[string]bool{}
	for _, u := range res.Unread {
		unread[u.Source] = true
	}
	// A source that could not be read is said so (below), never counted
	// as read and empty.
	if !unread[changesstep.SourceTrail] {
		d.Infof("CloudTrail: %s read in %s; kept %s related to %s and %s; dropped %d as noise",
			plural.Of(res.Read, "write event"), plural.Of(res.Pages, "page"), plural.Of(related, "change"), res.Queue, plural.Of(deploys, "deploy"), res.Dropped)
		for _, n := range res.Noise {
			d.Infof("  dropped %d: %s", n.Count, n.Reason)
		}
	}
	if !unread[changesstep.SourceAlarms] {
		d.Infof("alarms that went to ALARM in the window: %d", len(res.Alarms))
	}
	for _, w := range res.Warnings {
		d.Warnf("%s", untrusted.Shorten(w, maxLine))
	}
	for _, u := range res.Unread {
		d.Warnf("could not read %s: %s", u.Source, untrusted.Shorten(u.Reason, maxLine))
	}
	d.Infof("this is %s's event history in %s only: another account or region is out of reach", cmdutil.OrUnknown(res.Account), cmdutil.OrUnknown(res.Region))
}

// chartLines is the chart a terminal shows: the slices where nothing
// happened (every series 0) left out and counted once under it. Piped, the
// chart is whole, as the report prints it.
func chartLines(res *changesstep.Result, tty bool) []string {
	if !tty {
		return res.Chart()
	}
	lines, flat := res.TerseChart()
	if len(lines) < 2 || flat == 0 {
		return lines
	}
	lines = lines[:len(lines)-1]
	if len(lines) == 1 { // every slice flat: no header over nothing
		lines = nil
	}
	slice := res.Range.To.Sub(res.Range.From) / changesstep.ChartRows
	return append(lines, fmt.Sprintf("%d slices of %s from %s; %d flat at 0 (nothing arrived, failed or ran) not shown",
		changesstep.ChartRows, changesstep.Words(slice), res.Range.From.UTC().Format("2006-01-02 15:04 UTC"), flat))
}

// terminalEvidence is the evidence line built from shortened fields, so
// that a long resource or user does not push the time and the offset off
// the line.
func terminalEvidence(res *changesstep.Result) string {
	switch {
	case res.Verdict == changesstep.VerdictChange && res.Nearest != nil:
		return changesstep.Sentence(res.Nearest.Shortened(maxCell))
	case res.Verdict == changesstep.VerdictAlarm:
		for _, a := range res.Alarms {
			if !a.Own {
				a.Name, a.Dependency, a.Namespace, a.Metric = short(a.Name), short(a.Dependency), short(a.Namespace), short(a.Metric)
				return changesstep.AlarmSentence(a)
			}
		}
	}
	return untrusted.Shorten(res.Evidence, maxLine)
}

// offsetText says an offset from the first failure in words.
func offsetText(offset int64) string {
	d := time.Duration(offset) * time.Second
	switch {
	case d <= -time.Minute:
		return changesstep.Words(-d) + " before"
	case d >= time.Minute:
		return changesstep.Words(d) + " after"
	}
	return "at the first failure"
}
