package cmd

import (
	"context"

	"time"

	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// gatherConsumer reads what the consumer safeguards are judged on: each
// source's alarms on ApproximateAgeOfOldestMessage, the DLQ's oldest
// message's age, and the idempotency stores the mappings' functions name.
// What may not be read is left unknown (a warning finding), never an
// error.
func (o *checkOptions) gatherConsumer(ctx context.Context, cw interface {
	cwapi.AlarmsAPI
	cwapi.MetricsAPI
}, in *check.CheckInput) {
	d := o.deps
	in.AgeAlarms = map[string][]cwtypes.MetricAlarm{}
	for _, src := range in.Sources {
		alarms, err := cwapi.QueueAlarms(ctx, cw, src.Name, cwapi.MetricAgeOfOldest)
		if err != nil {
			d.warnf("CloudWatch alarms on %s's %s unknown: %v", src.Name, cwapi.MetricAgeOfOldest, err)
			continue
		}
		in.AgeAlarms[src.Name] = alarms
	}
	in.OldestAge = oldestAge(ctx, cw, in.DLQ, d.Now())
	in.Stores = map[string]check.StoreReading{}
	for _, ms := range in.Mappings {
		for _, m := range ms {
			t := m.IdempotencyTable
			if _, done := in.Stores[t]; t == "" || done {
				continue
			}
			in.Stores[t] = o.readStore(ctx, t)
		}
	}
}

// readStore reads one idempotency store, or says why it could not.
func (o *checkOptions) readStore(ctx context.Context, table string) check.StoreReading {
	d := o.deps
	if d.DynamoDB == nil {
		return check.StoreReading{Unread: "no DynamoDB client"}
	}
	db, err := d.DynamoDB(ctx)
	if err != nil {
		return check.StoreReading{Unread: untrusted.Shorten(untrusted.Terminal(err.Error()), 200)}
	}
	s, err := idempotency.Read(ctx, db, table, d.Now())
	if err != nil {
		return check.StoreReading{Store: s, Unread: untrusted.Shorten(untrusted.Terminal(err.Error()), 200)}
	}
	return check.StoreReading{Store: s}
}

// oldestAge is the DLQ's ApproximateAgeOfOldestMessage over the last
// hour, its latest point; 0 when CloudWatch holds none or may not be read.
func oldestAge(ctx context.Context, cw cwapi.MetricsAPI, dlq *sqsapi.Queue, now time.Time) time.Duration {
	pts, err := cwapi.QueueMetric(ctx, cw, cwapi.MetricQuery{Queue: dlq.Name, Metric: cwapi.MetricAgeOfOldest, Stat: "Maximum",
		Start: now.Add(-time.Hour), End: now, Period: time.Minute})
	if err != nil || len(pts) == 0 {
		return 0
	}
	return time.Duration(pts[len(pts)-1].Value * float64(time.Second))
}
