package cwapi

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/awserr"
)

// AlarmsAPI is the CloudWatch alarm calls of mfdlq check, with the SDK's
// signatures so *cloudwatch.Client satisfies it.
type AlarmsAPI interface {
	DescribeAlarmsAPI
	PutMetricAlarm(ctx context.Context, in *cloudwatch.PutMetricAlarmInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.PutMetricAlarmOutput, error)
}

// DescribeAlarmsAPI is the call that lists alarms.
type DescribeAlarmsAPI interface {
	DescribeAlarms(ctx context.Context, in *cloudwatch.DescribeAlarmsInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.DescribeAlarmsOutput, error)
}

var _ AlarmsAPI = (*cloudwatch.Client)(nil)

// maxAlarmPages bounds one listing of a region's alarms: 100 pages of 100,
// ten thousand alarms (CloudWatch's default quota is 10,000 per region).
const maxAlarmPages = 100

// Alarms are the region's alarms, metric and composite, as one listing
// read them: what watches which queue. DescribeAlarmsForMetric returns
// neither metric-math nor composite alarms, so check, contain and ls all
// read this one listing (ReadAlarms) and ask it (On, Parents).
type Alarms struct {
	Metric    []cwtypes.MetricAlarm
	Composite []cwtypes.CompositeAlarm
	// Truncated is a listing that stopped at maxAlarmPages.
	Truncated bool
	// CompositesUnknown is a listing of metric alarms only: composite
	// alarms need cloudwatch:DescribeAlarms on resource *, and the role's
	// is narrower (the call with both types was refused).
	CompositesUnknown bool
}

// ReadAlarms pages through every alarm of the region, metric and composite
// (100 a page, DescribeAlarms' maximum). A role whose DescribeAlarms is
// scoped narrower than * may not read composite alarms: refused, the
// listing is of metric alarms alone (CompositesUnknown).
func ReadAlarms(ctx context.Context, cw DescribeAlarmsAPI) (*Alarms, error) {
	all, err := readAlarms(ctx, cw, []cwtypes.AlarmType{cwtypes.AlarmTypeMetricAlarm, cwtypes.AlarmTypeCompositeAlarm})
	if err != nil && awserr.Denied(err) {
		if all, err = readAlarms(ctx, cw, []cwtypes.AlarmType{cwtypes.AlarmTypeMetricAlarm}); err == nil {
			all.CompositesUnknown = true
		}
	}
	return all, err
}

func readAlarms(ctx context.Context, cw DescribeAlarmsAPI, types []cwtypes.AlarmType) (*Alarms, error) {
	in := &cloudwatch.DescribeAlarmsInput{MaxRecords: aws.Int32(100), AlarmTypes: types}
	all := &Alarms{}
	for page := 0; ; page++ {
		if page == maxAlarmPages {
			all.Truncated = true
			return all, nil
		}
		out, err := cw.DescribeAlarms(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("cloudwatch DescribeAlarms: %w", err)
		}
		all.Metric = append(all.Metric, out.MetricAlarms...)
		all.Composite = append(all.Composite, out.CompositeAlarms...)
		if aws.ToString(out.NextToken) == "" {
			return all, nil
		}
		in.NextToken = out.NextToken
	}
}

// On returns the metric alarms on one AWS/SQS metric of queue (a DLQ's
// visible messages, a source's age of oldest): an alarm on the metric
// itself, or a metric-math alarm with it among its queries.
func (x *Alarms) On(queue, metric string) []cwtypes.MetricAlarm {
	var out []cwtypes.MetricAlarm
	for _, a := range x.Metric {
		if slices.Contains(WatchedQueues(a, metric), queue) {
			out = append(out, a)
		}
	}
	return out
}

// Parents are the composite alarms whose rule names the alarm name: a
// DLQ alarm without actions of its own may notify through one of them.
func (x *Alarms) Parents(name string) []cwtypes.CompositeAlarm {
	var out []cwtypes.CompositeAlarm
	for _, c := range x.Composite {
		if ruleNames(aws.ToString(c.AlarmRule), name) {
			out = append(out, c)
		}
	}
	return out
}

// ruleNames tells whether an AlarmRule names alarm: ALARM("name"),
// OK(name), or the alarm's ARN.
func ruleNames(rule, alarm string) bool {
	for _, form := range []string{`"` + alarm + `"`, "(" + alarm + ")", ":alarm:" + alarm + ")", ":alarm:" + alarm + `"`} {
		if strings.Contains(rule, form) {
			return true
		}
	}
	return false
}

// IsMath tells a metric-math alarm (Metrics[] rather than one metric):
// its threshold is on an expression mfdlq does not evaluate.
func IsMath(a cwtypes.MetricAlarm) bool { return a.MetricName == nil && len(a.Metrics) > 0 }

// WatchedQueues are the queues whose AWS/SQS metric an alarm watches,
// plainly or among a metric-math alarm's queries.
func WatchedQueues(a cwtypes.MetricAlarm, metric string) []string {
	var out []string
	add := func(ns, name string, dims []cwtypes.Dimension) {
		if ns != Namespace || name != metric {
			return
		}
		for _, d := range dims {
			if aws.ToString(d.Name) == DimensionQueueName {
				out = append(out, aws.ToString(d.Value))
			}
		}
	}
	add(aws.ToString(a.Namespace), aws.ToString(a.MetricName), a.Dimensions)
	for _, q := range a.Metrics {
		if q.MetricStat != nil && q.MetricStat.Metric != nil {
			m := q.MetricStat.Metric
			add(aws.ToString(m.Namespace), aws.ToString(m.MetricName), m.Dimensions)
		}
	}
	return out
}

// DLQAlarmPeriod is the period of the alarm check creates: it fires within
// one period of the DLQ's first message.
const DLQAlarmPeriod = 5 * time.Minute

// AlarmName is the name mfdlq gives the DLQ alarm it creates.
func AlarmName(queue string) string { return queue + "-not-empty" }

// DLQAlarmInput is the alarm check --create-alarm creates: the DLQ's
// ApproximateNumberOfMessagesVisible (Maximum) above 0 over one 5-minute
// period notifies topic; missing data (a queue SQS stopped reporting for
// inactivity) is not breaching.
func DLQAlarmInput(queue, topic string) *cloudwatch.PutMetricAlarmInput {
	return &cloudwatch.PutMetricAlarmInput{
		AlarmName:          aws.String(AlarmName(queue)),
		AlarmDescription:   aws.String(fmt.Sprintf("Messages in the dead-letter queue %s: run mfdlq contain --queue %s", queue, queue)),
		Namespace:          aws.String(Namespace),
		MetricName:         aws.String(MetricVisible),
		Dimensions:         []cwtypes.Dimension{{Name: aws.String(DimensionQueueName), Value: aws.String(queue)}},
		Statistic:          cwtypes.StatisticMaximum,
		Period:             aws.Int32(int32(DLQAlarmPeriod / time.Second)),
		EvaluationPeriods:  aws.Int32(1),
		DatapointsToAlarm:  aws.Int32(1),
		Threshold:          aws.Float64(0),
		ComparisonOperator: cwtypes.ComparisonOperatorGreaterThanThreshold,
		TreatMissingData:   aws.String("notBreaching"),
		ActionsEnabled:     aws.Bool(true),
		AlarmActions:       []string{topic},
	}
}

// CreateDLQAlarm creates (or replaces: PutMetricAlarm overwrites an alarm
// of the same name) the alarm DLQAlarmInput describes, and names it.
func CreateDLQAlarm(ctx context.Context, cw AlarmsAPI, queue, topic string) (string, error) {
	in := DLQAlarmInput(queue, topic)
	if _, err := cw.PutMetricAlarm(ctx, in); err != nil {
		return *in.AlarmName, fmt.Errorf("create alarm %s: %w", *in.AlarmName, err)
	}
	return *in.AlarmName, nil
}
