package inventory

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/lambdaapi"
)

// Lambda is the call that lists event source mappings, with the SDK's
// signature so that *lambda.Client satisfies it.
type Lambda interface {
	ListEventSourceMappings(ctx context.Context, in *lambda.ListEventSourceMappingsInput, optFns ...func(*lambda.Options)) (*lambda.ListEventSourceMappingsOutput, error)
}

var _ Lambda = (*lambda.Client)(nil)

// Alarms is the call that lists alarms, with the SDK's signature so that
// *cloudwatch.Client satisfies it.
type Alarms interface {
	DescribeAlarms(ctx context.Context, in *cloudwatch.DescribeAlarmsInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.DescribeAlarmsOutput, error)
}

var _ Alarms = (*cloudwatch.Client)(nil)

// readFunctions lists every event source mapping of the region once (a
// filter per source would cost a call per queue) and names, per source and
// per DLQ, the functions reading the sources.
func readFunctions(ctx context.Context, l Lambda, dlqs []DLQ) error {
	if l == nil || len(dlqs) == 0 {
		return nil
	}
	bySource := map[string][]string{} // source ARN → function names
	in := &lambda.ListEventSourceMappingsInput{MaxItems: aws.Int32(10000)}
	for {
		page, err := l.ListEventSourceMappings(ctx, in)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("functions unknown: lambda ListEventSourceMappings: %v", err)
		}
		for _, m := range page.EventSourceMappings {
			src := aws.ToString(m.EventSourceArn)
			bySource[src] = appendUnique(bySource[src], lambdaapi.FunctionName(aws.ToString(m.FunctionArn)))
		}
		if aws.ToString(page.NextMarker) == "" {
			break
		}
		in.Marker = page.NextMarker
	}
	for i := range dlqs {
		d := &dlqs[i]
		d.Functions, d.FunctionsKnown = []string{}, true
		for j := range d.Sources {
			s := &d.Sources[j]
			s.Functions = append([]string{}, bySource[s.ARN]...)
			sort.Strings(s.Functions)
			for _, f := range s.Functions {
				d.Functions = appendUnique(d.Functions, f)
			}
		}
		sort.Strings(d.Functions)
	}
	return nil
}

// readAlarms lists the region's alarms (cwapi.ReadAlarms, the listing check
// reads too) and keeps, per DLQ, those on its
// ApproximateNumberOfMessagesVisible: a plain alarm on the metric or a
// metric-math alarm with the metric among its queries.
func readAlarms(ctx context.Context, a Alarms, dlqs []DLQ) error {
	if a == nil || len(dlqs) == 0 {
		return nil
	}
	all, err := cwapi.ReadAlarms(ctx, a)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("alarms unknown: %v", err)
	}
	byQueue := map[string][]string{}
	for _, al := range all.Metric {
		for _, q := range cwapi.WatchedQueues(al, cwapi.MetricVisible) {
			byQueue[q] = appendUnique(byQueue[q], aws.ToString(al.AlarmName))
		}
	}
	for i := range dlqs {
		dlqs[i].Alarms, dlqs[i].AlarmsKnown = append([]string{}, byQueue[dlqs[i].Queue]...), true
		sort.Strings(dlqs[i].Alarms)
	}
	return nil
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
