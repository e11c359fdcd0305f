package health

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
)

// AlarmsAPI is the one CloudWatch call the wait makes, with the SDK's
// signature so *cloudwatch.Client satisfies it.
type AlarmsAPI interface {
	DescribeAlarms(ctx context.Context, in *cloudwatch.DescribeAlarmsInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.DescribeAlarmsOutput, error)
}

var _ AlarmsAPI = (*cloudwatch.Client)(nil)
