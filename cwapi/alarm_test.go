package cwapi

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/smithy-go"
)

// narrowRole refuses DescribeAlarms for composite alarms, as CloudWatch
// does to a role whose cloudwatch:DescribeAlarms is scoped narrower than *.
type narrowRole struct{ calls int }

func (n *narrowRole) DescribeAlarms(_ context.Context, in *cloudwatch.DescribeAlarmsInput, _ ...func(*cloudwatch.Options)) (*cloudwatch.DescribeAlarmsOutput, error) {
	n.calls++
	if slices.Contains(in.AlarmTypes, cwtypes.AlarmTypeCompositeAlarm) {
		return nil, &smithy.GenericAPIError{Code: "AccessDenied", Message: "not authorized to perform: cloudwatch:DescribeAlarms"}
	}
	return &cloudwatch.DescribeAlarmsOutput{MetricAlarms: []cwtypes.MetricAlarm{{AlarmName: aws.String("orders-dlq-not-empty")}}}, nil
}

// Refused composite alarms leave the metric alarms readable: the listing
// says composites are unknown instead of failing (ls read metric alarms
// only before, and must not lose them to a narrow role).
func TestReadAlarmsNarrowRole(t *testing.T) {
	n := &narrowRole{}
	all, err := ReadAlarms(context.Background(), n)
	if err != nil || len(all.Metric) != 1 || !all.CompositesUnknown || n.calls != 2 {
		t.Fatalf("ReadAlarms = %+v, %v after %d calls; want the metric alarm, composites unknown", all, err, n.calls)
	}
}
