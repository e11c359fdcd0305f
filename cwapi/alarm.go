package cwapi

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
)

// AlarmsAPI is the CloudWatch alarm calls of mfdlq check, with the SDK's
// signatures so *cloudwatch.Client satisfies it.
type AlarmsAPI interface {
	DescribeAlarmsForMetric(ctx context.Context, in *cloudwatch.DescribeAlarmsForMetricInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.DescribeAlarmsForMetricOutput, error)
	PutMetricAlarm(ctx context.Context, in *cloudwatch.PutMetricAlarmInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.PutMetricAlarmOutput, error)
}

var _ AlarmsAPI = (*cloudwatch.Client)(nil)

// DLQAlarms returns the metric alarms on queue's
// ApproximateNumberOfMessagesVisible. The dimension is checked here as
// well, because not every server filters on it.
func DLQAlarms(ctx context.Context, cw AlarmsAPI, queue string) ([]cwtypes.MetricAlarm, error) {
	return QueueAlarms(ctx, cw, queue, MetricVisible)
}

// QueueAlarms returns the metric alarms on one AWS/SQS metric of queue
// (a source's ApproximateAgeOfOldestMessage, a DLQ's visible messages).
func QueueAlarms(ctx context.Context, cw AlarmsAPI, queue, metric string) ([]cwtypes.MetricAlarm, error) {
	out, err := cw.DescribeAlarmsForMetric(ctx, &cloudwatch.DescribeAlarmsForMetricInput{
		Namespace: aws.String(Namespace), MetricName: aws.String(metric),
		Dimensions: []cwtypes.Dimension{{Name: aws.String(DimensionQueueName), Value: aws.String(queue)}},
	})
	if err != nil {
		return nil, fmt.Errorf("describe alarms of %s: %w", queue, err)
	}
	var alarms []cwtypes.MetricAlarm
	for _, a := range out.MetricAlarms {
		if aws.ToString(a.Namespace) != Namespace || aws.ToString(a.MetricName) != metric {
			continue
		}
		for _, d := range a.Dimensions {
			if aws.ToString(d.Name) == DimensionQueueName && aws.ToString(d.Value) == queue {
				alarms = append(alarms, a)
				break
			}
		}
	}
	return alarms, nil
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
