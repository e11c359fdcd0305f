// Package changes is `mfdlq changes`: what changed around the incident's
// first failure (the trail, alarms, the consumer's metrics). The step's
// work and verdicts are the changes step package's, imported as
// changesstep.
package changes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	changesstep "github.com/mfdlq/mfdlq/changes"
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/trailapi"
)

// ChangesOptions are the flags of mfdlq changes.
type ChangesOptions struct {
	deps      *cmdutil.Deps
	Queue     string        // --queue: the DLQ (name, URL or ARN)
	From      string        // --from: the window's start, overriding the messages'
	To        string        // --to: the window's end
	Margin    time.Duration // --margin: widens the messages' window on both sides
	Functions []string      // --function: consumers no event source mapping names
	Force     bool          // --force: peek even though the DLQ has its own redrive policy

	from, to *time.Time // parsed by validate
}

// maxMargin keeps a window within what an engineer can read through.
const maxMargin = 7 * 24 * time.Hour

// NewCmdChanges is `mfdlq changes`; runF, when not nil, gets the parsed
// options instead of the run (tests).
func NewCmdChanges(d *cmdutil.Deps, runF func(*ChangesOptions) error) *cobra.Command {
	opts := &ChangesOptions{deps: d}
	c := &cobra.Command{
		Use:   "changes --queue DLQ [--since T] [--until T] [--margin 30m] [--function NAME]",
		Short: runbook.Label(runbook.StepChanges) + ": what changed around the first failure (then classify)",
		Long:  docs.Long("changes") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  cmdutil.StepRunE(d, opts, opts.validate, func() string { return opts.Queue }, runF, runChanges),
	}
	f := c.Flags()
	cmdutil.AddQueueFlag(f, &opts.Queue)
	f.StringVar(&opts.From, "since", "", "start of the window (RFC 3339), instead of the first failure − --margin")
	f.StringVar(&opts.To, "until", "", "end of the window (RFC 3339), instead of the last failure + --margin")
	d.RenamedFlag(f, "from", "since")
	d.RenamedFlag(f, "to", "until")
	f.DurationVar(&opts.Margin, "margin", 30*time.Minute, "widen the failures' window by this much on both sides")
	f.StringArrayVar(&opts.Functions, "function", nil, "a consumer Lambda function no event source mapping names (repeatable)")
	cmdutil.AddForceFlag(f, &opts.Force)
	return c
}

func (o *ChangesOptions) validate() error {
	switch {
	case o.Queue == "":
		return cmdutil.ErrNoQueue
	case o.Margin <= 0 || o.Margin > maxMargin:
		return cmdutil.UsageErrorf("--margin must be between 1s and %s, got %s", maxMargin, o.Margin)
	}
	var err error
	if o.from, err = parseTime("--since", o.From); err != nil {
		return err
	}
	if o.to, err = parseTime("--until", o.To); err != nil {
		return err
	}
	if o.from != nil && o.to != nil && !o.from.Before(*o.to) {
		return cmdutil.UsageErrorf("--since %s is not before --until %s", o.From, o.To)
	}
	for _, fn := range o.Functions {
		if strings.TrimSpace(fn) == "" {
			return cmdutil.UsageErrorf("--function is empty: name a Lambda function such as orders-consumer")
		}
	}
	return nil
}

// parseTime reads an RFC 3339 flag value; "" is no value.
func parseTime(flag, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, cmdutil.UsageErrorf("%s %q: give a time as RFC 3339, e.g. 2026-11-29T22:04:00Z", flag, s)
	}
	t = t.UTC()
	return &t, nil
}

func runChanges(ctx context.Context, o *ChangesOptions) error {
	d := o.deps
	defer d.HoldIncidentLine()() // the answer first, where it was written last
	client, q, err := d.ResolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	d.Announce("looking at what changed around", q)
	ws, err := d.Workspace(q.Name)
	if err != nil {
		return err
	}
	span, err := o.span(ctx, q, ws)
	if err != nil {
		return err
	}
	w, err := changesstep.NewRange(span)
	if errors.Is(err, changesstep.ErrNoTimes) {
		return cmdutil.CheckFailedf("changes %s: %v: the DLQ showed no message; pass --since and --until", q.Name, err)
	}
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	clients, err := o.clients(ctx, client, q)
	if err != nil {
		return err
	}
	d.Infof("window %s – %s (%s, margin %s); reading CloudTrail at two lookups a second", w.From.Format(time.RFC3339), w.To.Format(time.RFC3339), w.Source, o.Margin)
	res, err := changesstep.Run(ctx, clients, changesstep.Request{Queue: q, Range: w, Sent: span.Sent, Functions: o.Functions, Now: d.Now().UTC()})
	if err != nil {
		return fmt.Errorf("changes %s: %w", q.Name, err)
	}
	if err := ws.WriteJSON(incident.ChangesFile, res); err != nil {
		return err
	}
	ev, err := changesEvent(d, q, o, res)
	if err != nil {
		return err
	}
	if err := ws.Append(ev); err != nil {
		return err
	}
	if err := o.render(res); err != nil {
		return err
	}
	if res.PermissionDenied() {
		return &cmdutil.ExitError{Code: cmdutil.ExitAuth, Err: fmt.Errorf("changes %s: not allowed to read %s: what could be read is above (docs/iam.md: cloudtrail:LookupEvents, cloudwatch:DescribeAlarmHistory, cloudwatch:GetMetricData)", q.Name, unreadList(res))}
	}
	d.NextStep("mfdlq classify --queue %s (its evidence names the nearest change)", q.Name)
	return nil
}

// span gathers the failures' times: the incident's sample and
// classification, else a harmless peek; --since/--until alone need neither.
func (o *ChangesOptions) span(ctx context.Context, q *sqsapi.Queue, ws *incident.Workspace) (changesstep.Span, error) {
	d := o.deps
	s := changesstep.Span{Margin: o.Margin, From: o.from, To: o.to, Now: d.Now().UTC()}
	if c, err := classify.Load(ws); err == nil && c.FirstSent != nil && c.LastSent != nil {
		s.Sent, s.Source = append(s.Sent, *c.FirstSent, *c.LastSent), incident.ClassificationFile
	}
	if o.from != nil && o.to != nil && !ws.Has(incident.SamplesFile) {
		s.Source = "--since/--until"
		return s, nil
	}
	set, err := d.Samples(ctx, q, ws, cmdutil.SampleRequest{Step: "changes", Force: o.Force,
		Peek: sqsapi.PeekOptions{Max: 100, Visibility: 5, Wait: 2}})
	if err != nil {
		return s, err
	}
	msgs, err := set.Read()
	if err != nil {
		return s, err
	}
	var sent []time.Time
	byReceive := 0
	for i := range msgs {
		if t, first, ok := changesstep.FailureTime(&msgs[i]); ok {
			sent = append(sent, t)
			byReceive += btoi(first)
		}
	}
	source := set.Source
	if byReceive > 0 {
		// The classification's times are SentTimestamps: on a backlogged
		// source hours before the failures the first receives date.
		s.Sent, s.Source = nil, ""
		source += fmt.Sprintf(", %d of %d dated by their first receive", byReceive, len(sent))
	}
	s.Sent = append(s.Sent, sent...)
	s.Source = strings.TrimPrefix(s.Source+" and "+source, " and ")
	return s, nil
}

// clients builds the step's AWS clients. Without Lambda the consumers are
// only those --function names.
func (o *ChangesOptions) clients(ctx context.Context, sq sqsapi.Client, q *sqsapi.Queue) (changesstep.Clients, error) {
	d := o.deps
	trail, err := d.CloudTrail(ctx)
	if err != nil {
		return changesstep.Clients{}, err
	}
	cw, err := d.CloudWatch(ctx)
	if err != nil {
		return changesstep.Clients{}, err
	}
	c := changesstep.Clients{SQS: sq, Trail: trail, History: cw, Metrics: cw, Retry: trailapi.DefaultRetry}
	c.Pacer = d.TrailPacer(q.Account, q.Region)
	if l, err := d.Lambda(ctx); err == nil {
		c.Lambda = l
	}
	return c, nil
}

// changesEvent is the one place the changes event is built: its inputs
// and its figures (changesstep.Inputs, changesstep.Figures).
func changesEvent(d *cmdutil.Deps, q *sqsapi.Queue, o *ChangesOptions, res *changesstep.Result) (incident.Event, error) {
	ev := d.Event(incident.StepChanges, q)
	in := changesstep.Inputs{From: o.From, To: o.To, Margin: o.Margin.String(), Functions: o.Functions}
	if err := ev.Set(in, res.Figures()); err != nil {
		return ev, err
	}
	ev.Verdict = string(res.Verdict)
	ev.Artifact = incident.ChangesFile
	return ev, nil
}

func unreadList(res *changesstep.Result) string {
	var out []string
	for _, u := range res.Unread {
		if u.Permission {
			out = append(out, u.Source)
		}
	}
	return strings.Join(out, ", ")
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
