// Package cwapi is mfdlq's CloudWatch layer: the metrics SQS publishes for a
// queue (depth, age of the oldest message, deletions) and the alarm on a
// DLQ. It reads and writes what it is asked to and judges nothing: contain,
// verify and check decide from what it reads.
package cwapi

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/schemas"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/smithy-go/transport/http/protocol/awsquery"
)

// SQS metric names, in the AWS/SQS namespace with the QueueName dimension.
const (
	Namespace             = "AWS/SQS"
	MetricVisible         = "ApproximateNumberOfMessagesVisible"
	MetricNotVisible      = "ApproximateNumberOfMessagesNotVisible"
	MetricDelayed         = "ApproximateNumberOfMessagesDelayed"
	MetricMessagesSent    = "NumberOfMessagesSent"
	MetricAgeOfOldest     = "ApproximateAgeOfOldestMessage"
	MetricMessagesDeleted = "NumberOfMessagesDeleted"
	DimensionQueueName    = "QueueName"
)

// Lambda metric names, in the AWS/Lambda namespace with the FunctionName
// dimension: changes reads a consumer's Errors and Throttles (verify judges a
// function target by its redriven events' own log lines, not these).
const (
	NamespaceLambda       = "AWS/Lambda"
	DimensionFunctionName = "FunctionName"
	MetricErrors          = "Errors"
	MetricThrottles       = "Throttles"
)

// ConfigureCloudWatch makes the CloudWatch client speak the awsQuery
// protocol instead of the SDK's default RPCv2 CBOR. It is applied always,
// not only with an endpoint override: real CloudWatch serves awsQuery for
// every operation mfdlq calls, and one protocol everywhere means the path
// the tests exercise against moto (which answers CBOR with 404) is the path
// production uses. docs/aws-cloudwatch.md records the decision.
func ConfigureCloudWatch(o *cloudwatch.Options) {
	o.Protocol = awsquery.New(schemas.GraniteServiceVersion20100801)
}

// MetricsAPI is the CloudWatch call that reads metrics, with the SDK's
// signature so *cloudwatch.Client satisfies it.
type MetricsAPI interface {
	GetMetricData(ctx context.Context, in *cloudwatch.GetMetricDataInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.GetMetricDataOutput, error)
}

var _ MetricsAPI = (*cloudwatch.Client)(nil)

// Point is one datapoint of a metric.
type Point struct {
	Time  time.Time `json:"time"`
	Value float64   `json:"value"`
}

// MetricQuery names one metric of one queue (or, with Namespace and
// Dimension, one function) over a time range.
type MetricQuery struct {
	Queue string
	// Namespace and Dimension default to AWS/SQS and QueueName; a Lambda
	// function's metrics are AWS/Lambda with FunctionName.
	Namespace, Dimension string
	Metric               string
	Stat                 string // Maximum, Sum, Average …
	Start                time.Time
	End                  time.Time
	Period               time.Duration // a multiple of 60s
}

// QueueMetric returns the datapoints of a metric, oldest first. An
// empty result means CloudWatch holds no data for it (a queue with no
// traffic, a metric not yet published, or too short a range).
func QueueMetric(ctx context.Context, cw MetricsAPI, q MetricQuery) ([]Point, error) {
	if q.Namespace == "" {
		q.Namespace, q.Dimension = Namespace, DimensionQueueName
	}
	period := int32(q.Period / time.Second)
	if period < 60 {
		period = 60
	}
	in := &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(q.Start),
		EndTime:   aws.Time(q.End),
		ScanBy:    types.ScanByTimestampAscending,
		MetricDataQueries: []types.MetricDataQuery{{
			Id: aws.String("m"),
			MetricStat: &types.MetricStat{
				Metric: &types.Metric{
					Namespace:  aws.String(q.Namespace),
					MetricName: aws.String(q.Metric),
					Dimensions: []types.Dimension{{Name: aws.String(q.Dimension), Value: aws.String(q.Queue)}},
				},
				Period: aws.Int32(period),
				Stat:   aws.String(q.Stat),
			},
			ReturnData: aws.Bool(true),
		}},
	}
	var points []Point
	for {
		out, err := cw.GetMetricData(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("cloudwatch %s of %s: %w", q.Metric, q.Queue, err)
		}
		for _, r := range out.MetricDataResults {
			for i := range r.Timestamps {
				if i < len(r.Values) {
					points = append(points, Point{Time: r.Timestamps[i].UTC(), Value: r.Values[i]})
				}
			}
		}
		if aws.ToString(out.NextToken) == "" {
			break
		}
		in.NextToken = out.NextToken
	}
	sort.Slice(points, func(i, j int) bool { return points[i].Time.Before(points[j].Time) })
	return points, nil
}

// PeriodFor picks a metric period for a window: one minute (SQS's own
// resolution) up to about 360 points, coarser beyond, always whole minutes.
func PeriodFor(window time.Duration) time.Duration {
	p := (window / 360).Truncate(time.Minute)
	if p < time.Minute {
		return time.Minute
	}
	return p
}
