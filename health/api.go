package health

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
)

// AlarmsAPI is the CloudWatch calls of the gate, with the SDK's signatures
// so *cloudwatch.Client satisfies it: DescribeAlarms reads the alarms;
// GetMetricData reads the metric of an alarm that may be OK only because
// it has no data (data.go).
type AlarmsAPI interface {
	DescribeAlarms(ctx context.Context, in *cloudwatch.DescribeAlarmsInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.DescribeAlarmsOutput, error)
	GetMetricData(ctx context.Context, in *cloudwatch.GetMetricDataInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.GetMetricDataOutput, error)
}

var _ AlarmsAPI = (*cloudwatch.Client)(nil)
