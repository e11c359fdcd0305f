package inventory

import (
	"context"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Calls counts a listing's AWS requests by operation (SDK retries not
// included): what the scale measurements report.
type Calls struct {
	ListQueues                 int64 `json:"list_queues"`
	GetQueueAttributes         int64 `json:"get_queue_attributes"`
	ListDeadLetterSourceQueues int64 `json:"list_dead_letter_source_queues"`
	GetMetricData              int64 `json:"get_metric_data"`
	DescribeAlarms             int64 `json:"describe_alarms"`
	ListEventSourceMappings    int64 `json:"list_event_source_mappings"`
}

// Total is every request.
func (c Calls) Total() int64 {
	return c.ListQueues + c.GetQueueAttributes + c.ListDeadLetterSourceQueues + c.GetMetricData + c.DescribeAlarms + c.ListEventSourceMappings
}

// Add sums two counts (listings of several regions).
func (c Calls) Add(o Calls) Calls {
	return Calls{c.ListQueues + o.ListQueues, c.GetQueueAttributes + o.GetQueueAttributes,
		c.ListDeadLetterSourceQueues + o.ListDeadLetterSourceQueues, c.GetMetricData + o.GetMetricData,
		c.DescribeAlarms + o.DescribeAlarms, c.ListEventSourceMappings + o.ListEventSourceMappings}
}

type counter struct {
	lq, gqa, ldl, gmd, da, lesm atomic.Int64
}

func (c *counter) snapshot() Calls {
	return Calls{c.lq.Load(), c.gqa.Load(), c.ldl.Load(), c.gmd.Load(), c.da.Load(), c.lesm.Load()}
}

// wrap returns cl with every call counted; nil clients stay nil.
func (c *counter) wrap(cl Clients) Clients {
	out := Clients{SQS: countedSQS{cl.SQS, c}}
	if cl.Metrics != nil {
		out.Metrics = countedMetrics{cl.Metrics, c}
	}
	if cl.Alarms != nil {
		out.Alarms = countedAlarms{cl.Alarms, c}
	}
	if cl.Lambda != nil {
		out.Lambda = countedLambda{cl.Lambda, c}
	}
	return out
}

type countedSQS struct {
	SQS
	c *counter
}

func (s countedSQS) ListQueues(ctx context.Context, in *sqs.ListQueuesInput, f ...func(*sqs.Options)) (*sqs.ListQueuesOutput, error) {
	s.c.lq.Add(1)
	return s.SQS.ListQueues(ctx, in, f...)
}

func (s countedSQS) GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, f ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	s.c.gqa.Add(1)
	return s.SQS.GetQueueAttributes(ctx, in, f...)
}

func (s countedSQS) ListDeadLetterSourceQueues(ctx context.Context, in *sqs.ListDeadLetterSourceQueuesInput, f ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error) {
	s.c.ldl.Add(1)
	return s.SQS.ListDeadLetterSourceQueues(ctx, in, f...)
}

type countedMetrics struct {
	Metrics
	c *counter
}

func (m countedMetrics) GetMetricData(ctx context.Context, in *cloudwatch.GetMetricDataInput, f ...func(*cloudwatch.Options)) (*cloudwatch.GetMetricDataOutput, error) {
	m.c.gmd.Add(1)
	return m.Metrics.GetMetricData(ctx, in, f...)
}

type countedAlarms struct {
	Alarms
	c *counter
}

func (a countedAlarms) DescribeAlarms(ctx context.Context, in *cloudwatch.DescribeAlarmsInput, f ...func(*cloudwatch.Options)) (*cloudwatch.DescribeAlarmsOutput, error) {
	a.c.da.Add(1)
	return a.Alarms.DescribeAlarms(ctx, in, f...)
}

type countedLambda struct {
	Lambda
	c *counter
}

func (l countedLambda) ListEventSourceMappings(ctx context.Context, in *lambda.ListEventSourceMappingsInput, f ...func(*lambda.Options)) (*lambda.ListEventSourceMappingsOutput, error) {
	l.c.lesm.Add(1)
	return l.Lambda.ListEventSourceMappings(ctx, in, f...)
}
