package cwapi

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
)

// More Lambda metric names (AWS/Lambda, FunctionName).
const (
	MetricDuration    = "Duration"
	MetricConcurrency = "ConcurrentExecutions"
)

// FunctionSeries are a function's metrics over a window, each oldest first.
type FunctionSeries struct {
	Errors      []Point `json:"errors"`                // Sum
	Throttles   []Point `json:"throttles"`             // Sum
	DurationP99 []Point `json:"duration_p99_ms"`       // p99, milliseconds
	Concurrency []Point `json:"concurrent_executions"` // Maximum
	// DurationUnread says why the p99 could not be read, when it could not:
	// a percentile is the statistic a server is likeliest to refuse (moto
	// does), and the other three still tell the story.
	DurationUnread string `json:"duration_p99_unread,omitempty"`
}

// FunctionMetrics reads a Lambda function's Errors, Throttles and
// ConcurrentExecutions in one GetMetricData request (paginated), and its
// Duration p99 in a second one whose failure is recorded, not returned.
func FunctionMetrics(ctx context.Context, cw MetricsAPI, function string, start, end time.Time, period time.Duration) (FunctionSeries, error) {
	p := int32(max(60, int(period/time.Second)))
	q := func(id, metric, stat string) types.MetricDataQuery {
		return types.MetricDataQuery{Id: aws.String(id), ReturnData: aws.Bool(true), MetricStat: &types.MetricStat{
			Metric: &types.Metric{Namespace: aws.String(NamespaceLambda), MetricName: aws.String(metric),
				Dimensions: []types.Dimension{{Name: aws.String(DimensionFunctionName), Value: aws.String(function)}}},
			Period: aws.Int32(p), Stat: aws.String(stat)}}
	}
	s := FunctionSeries{Errors: []Point{}, Throttles: []Point{}, DurationP99: []Point{}, Concurrency: []Point{}}
	into := map[string]*[]Point{"errors": &s.Errors, "throttles": &s.Throttles, "p99": &s.DurationP99, "concurrency": &s.Concurrency}
	read := func(opts []func(*cloudwatch.Options), qs ...types.MetricDataQuery) error {
		in := &cloudwatch.GetMetricDataInput{StartTime: aws.Time(start), EndTime: aws.Time(end), ScanBy: types.ScanByTimestampAscending, MetricDataQueries: qs}
		return readInto(ctx, cw, in, into, opts...)
	}
	if err := read(nil, q("errors", MetricErrors, "Sum"), q("throttles", MetricThrottles, "Sum"), q("concurrency", MetricConcurrency, "Maximum")); err != nil {
		return s, fmt.Errorf("cloudwatch metrics of function %s: %w", function, err)
	}
	// One attempt: a server that refuses percentiles refuses them every time.
	once := []func(*cloudwatch.Options){func(o *cloudwatch.Options) { o.RetryMaxAttempts = 1 }}
	if err := read(once, q("p99", MetricDuration, "p99")); err != nil {
		s.DurationP99, s.DurationUnread = []Point{}, err.Error()
	}
	for _, ps := range into {
		sort.Slice(*ps, func(i, j int) bool { return (*ps)[i].Time.Before((*ps)[j].Time) })
	}
	return s, nil
}

func readInto(ctx context.Context, cw MetricsAPI, in *cloudwatch.GetMetricDataInput, into map[string]*[]Point, opts ...func(*cloudwatch.Options)) error {
	for {
		out, err := cw.GetMetricData(ctx, in, opts...)
		if err != nil {
			return err
		}
		for _, r := range out.MetricDataResults {
			dst := into[aws.ToString(r.Id)]
			for i := range r.Timestamps {
				if dst != nil && i < len(r.Values) {
					*dst = append(*dst, Point{Time: r.Timestamps[i].UTC(), Value: r.Values[i]})
				}
			}
		}
		if aws.ToString(out.NextToken) == "" {
			break
		}
		in.NextToken = out.NextToken
	}
	return nil
}
