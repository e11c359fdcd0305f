package inventory

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Metrics is the CloudWatch call that reads the ages, with the SDK's
// signature so that *cloudwatch.Client satisfies it.
type Metrics interface {
	GetMetricData(ctx context.Context, in *cloudwatch.GetMetricDataInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.GetMetricDataOutput, error)
}

var _ Metrics = (*cloudwatch.Client)(nil)

// MaxQueriesPerCall is GetMetricData's limit on MetricDataQueries.
const MaxQueriesPerCall = 500

// readAges reads ApproximateAgeOfOldestMessage of every DLQ, 500 queues a
// GetMetricData call, and sets each one's latest point and expiry. A DLQ
// without a point keeps a nil age ("no data"). A refused or failing read
// leaves every age unknown and is returned as a warning.
func readAges(ctx context.Context, cw Metrics, dlqs []DLQ, o Options) error {
	if cw == nil || len(dlqs) == 0 {
		return nil
	}
	now := o.Now()
	for start := 0; start < len(dlqs); start += MaxQueriesPerCall {
		batch := dlqs[start:min(start+MaxQueriesPerCall, len(dlqs))]
		latest, err := latestAges(ctx, cw, batch, now.Add(-o.AgeWindow), now)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("age of oldest message unknown: cloudwatch GetMetricData: %v", err)
		}
		for i := range batch {
			p, ok := latest[i]
			if !ok {
				continue
			}
			d := &batch[i]
			age, at := p.Value, p.Time
			d.AgeOfOldest, d.AgeReadAt = &age, &at
			e := sqsapi.FromAge(age, at, time.Duration(d.Retention)*time.Second, d.FIFO)
			d.Expiry = &e
		}
	}
	return nil
}

// latestAges makes one GetMetricData request (and its pages) for batch
// and returns the latest point per index into batch.
func latestAges(ctx context.Context, cw Metrics, batch []DLQ, start, end time.Time) (map[int]cwapi.Point, error) {
	queries := make([]types.MetricDataQuery, len(batch))
	for i := range batch {
		queries[i] = types.MetricDataQuery{
			Id: aws.String("q" + strconv.Itoa(i)),
			MetricStat: &types.MetricStat{
				Metric: &types.Metric{
					Namespace:  aws.String(cwapi.Namespace),
					MetricName: aws.String(cwapi.MetricAgeOfOldest),
					Dimensions: []types.Dimension{{Name: aws.String(cwapi.DimensionQueueName), Value: aws.String(batch[i].Queue)}},
				},
				Period: aws.Int32(60),
				Stat:   aws.String("Maximum"),
			},
			ReturnData: aws.Bool(true),
		}
	}
	in := &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(start), EndTime: aws.Time(end),
		ScanBy: types.ScanByTimestampDescending, MetricDataQueries: queries,
	}
	latest := map[int]cwapi.Point{}
	for {
		out, err := cw.GetMetricData(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, r := range out.MetricDataResults {
			i, err := strconv.Atoi(strings.TrimPrefix(aws.ToString(r.Id), "q"))
			if err != nil || i < 0 || i >= len(batch) {
				continue
			}
			for k := range r.Timestamps {
				if k >= len(r.Values) {
					break
				}
				if p, ok := latest[i]; !ok || r.Timestamps[k].After(p.Time) {
					latest[i] = cwapi.Point{Time: r.Timestamps[k].UTC(), Value: r.Values[k]}
				}
			}
		}
		if aws.ToString(out.NextToken) == "" {
			return latest, nil
		}
		in.NextToken = out.NextToken
	}
}

// OldestExpiry tells when the oldest message of q expires: from
// CloudWatch's ApproximateAgeOfOldestMessage over the hour before now and,
// on a standard queue, from the earliest SentTimestamp of msgs (SQS counts
// a standard DLQ's retention from it), the sooner of the two. nil when
// neither tells. cw nil skips CloudWatch; its failure is returned beside
// what the messages tell, never instead of it.
func OldestExpiry(ctx context.Context, cw Metrics, q *sqsapi.Queue, msgs []sqsjson.Message, now time.Time) (*sqsapi.Expiry, error) {
	var e *sqsapi.Expiry
	var err error
	if cw != nil {
		e, err = ageExpiry(ctx, cw, q, now)
	}
	if q.FIFO {
		return e, err // a FIFO DLQ restarts the clock on the move: SentTimestamp says nothing
	}
	for i := range msgs {
		if sent, ok := msgs[i].SentTime(); ok {
			x := sqsapi.FromSent(sent, q.Retention)
			e = sqsapi.Earliest(e, &x)
		}
	}
	return e, err
}

// ageExpiry is OldestExpiry's CloudWatch answer: nil when CloudWatch has
// no point (an empty queue, or a metric not yet published).
func ageExpiry(ctx context.Context, cw Metrics, q *sqsapi.Queue, now time.Time) (*sqsapi.Expiry, error) {
	latest, err := latestAges(ctx, cw, []DLQ{{Queue: q.Name}}, now.Add(-time.Hour), now)
	if err != nil {
		return nil, fmt.Errorf("cloudwatch %s of %s: %w", cwapi.MetricAgeOfOldest, q.Name, err)
	}
	p, ok := latest[0]
	if !ok {
		return nil, nil
	}
	e := sqsapi.FromAge(p.Value, p.Time, q.Retention, q.FIFO)
	return &e, nil
}
