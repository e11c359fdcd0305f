package changes

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/trailapi"
)

// The sources the step reads, as Unread names them.
const (
	SourceTrail     = "cloudtrail"
	SourceAlarms    = "alarm-history"
	SourceMetrics   = "metrics"
	SourceResources = "resources"
)

// DefaultMaxEvents bounds one trail read: 100 pages of 50, which at two
// calls a second is under a minute. A busier range is cut with a warning
// naming --from/--to.
const DefaultMaxEvents = 5000

// maxConsumers bounds the functions whose metrics are read.
const maxConsumers = 5

// Clients are the AWS calls the step makes. Lambda may be nil (no mapping
// is looked for).
type Clients struct {
	SQS     sqsapi.Client
	Lambda  lambdaapi.LambdaAPI
	Trail   trailapi.Client
	Pacer   trailapi.Pacer
	Retry   trailapi.Retry
	History cwapi.HistoryAPI
	Metrics cwapi.MetricsAPI
}

// Request is one run of the step.
type Request struct {
	Queue     *sqsapi.Queue
	Range     Range
	Sent      []time.Time // the sampled SentTimestamps, for the arrivals
	Functions []string    // --function: consumers no mapping names
	Now       time.Time
	MaxEvents int                     // 0: DefaultMaxEvents
	Progress  func(events, pages int) // after each trail page
}

// Run reads the related resources, the trail, the alarm history and the
// consumers' metrics. A source it cannot read is recorded in Unread and
// the others are still read: the step always says what it saw.
func Run(ctx context.Context, c Clients, req Request) (*Result, error) {
	q := req.Queue
	r := &Result{Queue: q.Name, Account: q.Account, Region: q.Region, Range: req.Range,
		Events: []Event{}, Noise: []Noise{}, Alarms: []Alarm{}, Consumers: []Consumer{}, Unread: []Unread{}, Warnings: []string{}}
	r.Resources = resources(ctx, c, req, r)
	if err := r.readTrail(ctx, c, req); err != nil {
		return nil, err
	}
	if err := r.readAlarms(ctx, c, req.Now); err != nil {
		return nil, err
	}
	if err := r.readMetrics(ctx, c, req); err != nil {
		return nil, err
	}
	if len(r.Resources.Roles) > 0 && q.Region != "us-east-1" {
		r.Warnings = append(r.Warnings, fmt.Sprintf("IAM is global: changes to the consumers' role policies are recorded in us-east-1's event history, not %s's — look there (mfdlq changes reads %s only)", q.Region, q.Region))
	}
	r.Decide()
	return r, nil
}

// unread records a source that failed and lets the run go on; only an
// ended context (Ctrl-C) stops it.
func (r *Result) unread(source string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	r.Unread = append(r.Unread, Unread{Source: source, Reason: err.Error(), Permission: awserr.Denied(err)})
	return nil
}

// resources finds what the queue's messages go through: the DLQ, its
// sources, the functions their mappings invoke (and --function), those
// functions' roles, and the queues' KMS keys.
func resources(ctx context.Context, c Clients, req Request, r *Result) Resources {
	q := req.Queue
	res := Resources{Queues: []string{q.Name}, Functions: []string{}, Mappings: []string{}, Roles: []string{}, Keys: []string{}}
	addKey := func(qq *sqsapi.Queue) {
		if k := qq.Attributes["KmsMasterKeyId"]; k != "" && !slices.Contains(res.Keys, shortName(k)) {
			res.Keys = append(res.Keys, shortName(k))
		}
	}
	addKey(q)
	srcs, err := sqsapi.SourceQueues(ctx, c.SQS, q)
	if err != nil {
		_ = r.unread(SourceResources, err)
	}
	for _, s := range srcs {
		res.Queues = append(res.Queues, s.Name)
		addKey(s)
		if c.Lambda == nil {
			continue
		}
		ms, err := lambdaapi.Mappings(ctx, c.Lambda, s.Name, s.ARN, int64(s.Visibility/time.Second))
		if err != nil {
			_ = r.unread(SourceResources, err)
			continue
		}
		for _, m := range ms {
			res.Mappings = append(res.Mappings, m.UUID)
			if !slices.Contains(res.Functions, m.Function) {
				res.Functions = append(res.Functions, m.Function)
			}
		}
	}
	for _, f := range req.Functions {
		if !slices.Contains(res.Functions, shortName(f)) {
			res.Functions = append(res.Functions, shortName(f))
		}
	}
	for _, f := range res.Functions {
		if c.Lambda == nil {
			break
		}
		role, err := lambdaapi.FunctionRole(ctx, c.Lambda, f)
		if err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the execution role of %s is unknown (%v): changes to it are not marked as related", f, err))
			continue
		}
		if role != "" && !slices.Contains(res.Roles, shortName(role)) {
			res.Roles = append(res.Roles, shortName(role))
		}
	}
	return res
}

// readTrail reads the range's write events, one lookup attribute
// (ReadOnly=false) paged through, and sorts them.
func (r *Result) readTrail(ctx context.Context, c Clients, req Request) error {
	from, to, ok, warn := Clip(r.Range, req.Now, trailapi.History, "CloudTrail's event history")
	if warn != "" {
		r.Warnings = append(r.Warnings, warn)
	}
	if !ok {
		return r.unread(SourceTrail, fmt.Errorf("the window is older than the 90 days of event history"))
	}
	maxEvents := req.MaxEvents
	maxEvents = cmp.Or(maxEvents, DefaultMaxEvents)
	res, err := trailapi.LookupAll(ctx, c.Trail, c.Pacer, c.Retry, trailapi.Lookup{
		Key: "ReadOnly", Value: "false", Start: from, End: to, MaxEvents: maxEvents,
	}, req.Progress)
	r.Read, r.Pages = len(res.Events), res.Pages
	if err != nil {
		return r.unread(SourceTrail, err)
	}
	if res.Truncated {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the window holds more than %d write events: read the first %d (newest first); narrow it with --from/--to", maxEvents, len(res.Events)))
	}
	if res.Retries > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("CloudTrail throttled %d lookups (two a second per account and region): retried", res.Retries))
	}
	r.Events, r.Noise = Filter(res.Events, r.Resources, r.Range)
	if r.Events == nil {
		r.Events = []Event{}
	}
	if r.Noise == nil {
		r.Noise = []Noise{}
	}
	for _, n := range r.Noise {
		r.Dropped += n.Count
	}
	return nil
}

// readAlarms reads the alarms' state changes over the range, clipped to
// the two weeks CloudWatch keeps, and their metrics.
func (r *Result) readAlarms(ctx context.Context, c Clients, now time.Time) error {
	from, to, ok, warn := Clip(r.Range, now, cwapi.AlarmHistoryRetention, "CloudWatch's alarm history")
	if warn != "" {
		r.Warnings = append(r.Warnings, warn)
	}
	if !ok {
		return nil
	}
	changes, truncated, err := cwapi.StateChanges(ctx, c.History, from, to)
	if err != nil {
		return r.unread(SourceAlarms, err)
	}
	if truncated {
		r.Warnings = append(r.Warnings, "more alarm state changes than mfdlq reads in one window (5,000): narrow it with --from/--to")
	}
	var names []string
	for _, ch := range changes {
		if ch.To == "ALARM" && !slices.Contains(names, ch.Alarm) {
			names = append(names, ch.Alarm)
		}
	}
	metrics := map[string]cwapi.AlarmMetric{}
	if len(names) > 0 {
		if metrics, err = cwapi.AlarmMetrics(ctx, c.History, names); err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the alarms' metrics could not be read (%v)", err))
		}
	}
	r.Alarms = Alarms(changes, metrics, r.Resources, r.Range)
	return nil
}

// readMetrics reads each consumer's metrics and counts the arrivals per
// period.
func (r *Result) readMetrics(ctx context.Context, c Clients, req Request) error {
	period := cwapi.PeriodFor(r.Range.To.Sub(r.Range.From))
	r.Period = int64(period / time.Second)
	r.Arrivals = Arrivals(req.Sent, r.Range.From, period)
	fns := r.Resources.Functions
	if len(fns) > maxConsumers {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d consumer functions: metrics of the first %d only", len(fns), maxConsumers))
		fns = fns[:maxConsumers]
	}
	for _, f := range fns {
		s, err := cwapi.FunctionMetrics(ctx, c.Metrics, f, r.Range.From, r.Range.To, period)
		if err != nil {
			return r.unread(SourceMetrics, err)
		}
		if s.DurationUnread != "" {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the Duration p99 of %s could not be read: %s", f, s.DurationUnread))
		}
		r.Consumers = append(r.Consumers, Consumer{Function: f, Series: s})
	}
	return nil
}

// Arrivals counts times per period from `from`, as points.
func Arrivals(sent []time.Time, from time.Time, period time.Duration) []cwapi.Point {
	counts := map[int64]int{}
	for _, t := range sent {
		if t.Before(from) {
			continue
		}
		counts[int64(t.Sub(from)/period)]++
	}
	out := []cwapi.Point{}
	for i, n := range counts {
		out = append(out, cwapi.Point{Time: from.Add(time.Duration(i) * period).UTC(), Value: float64(n)})
	}
	slices.SortFunc(out, func(a, b cwapi.Point) int { return a.Time.Compare(b.Time) })
	return out
}
