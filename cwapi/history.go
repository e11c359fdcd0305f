package cwapi

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
)

// AlarmHistoryRetention is how long CloudWatch keeps an alarm's history
// (DescribeAlarmHistory's reference: two weeks).
const AlarmHistoryRetention = 14 * 24 * time.Hour

// maxHistoryPages bounds one history read: 100 records a page, 50 pages.
const maxHistoryPages = 50

// HistoryAPI is the CloudWatch calls that read alarm history and the
// alarms' metrics, with the SDK's signatures.
type HistoryAPI interface {
	DescribeAlarmHistory(ctx context.Context, in *cloudwatch.DescribeAlarmHistoryInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.DescribeAlarmHistoryOutput, error)
	DescribeAlarms(ctx context.Context, in *cloudwatch.DescribeAlarmsInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.DescribeAlarmsOutput, error)
}

var _ HistoryAPI = (*cloudwatch.Client)(nil)

// StateChange is one alarm state update.
type StateChange struct {
	Alarm  string    `json:"alarm"`
	Time   time.Time `json:"time"`
	From   string    `json:"from"`
	To     string    `json:"to"`
	Reason string    `json:"reason"`
}

// StateChanges reads the metric alarms' state updates in [start, end],
// oldest first, every page (100 records each, up to maxHistoryPages;
// truncated tells when more were left).
func StateChanges(ctx context.Context, cw HistoryAPI, start, end time.Time) (changes []StateChange, truncated bool, err error) {
	in := &cloudwatch.DescribeAlarmHistoryInput{
		HistoryItemType: types.HistoryItemTypeStateUpdate,
		StartDate:       aws.Time(start), EndDate: aws.Time(end),
		MaxRecords: aws.Int32(100), ScanBy: types.ScanByTimestampAscending,
	}
	for page := 0; ; page++ {
		if page == maxHistoryPages {
			return changes, true, nil
		}
		out, err := cw.DescribeAlarmHistory(ctx, in)
		if err != nil {
			return nil, false, fmt.Errorf("cloudwatch describe-alarm-history: %w", err)
		}
		for _, it := range out.AlarmHistoryItems {
			changes = append(changes, stateChange(it))
		}
		if aws.ToString(out.NextToken) == "" {
			break
		}
		in.NextToken = out.NextToken
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].Time.Before(changes[j].Time) })
	return changes, false, nil
}

func stateChange(it types.AlarmHistoryItem) StateChange {
	c := StateChange{Alarm: aws.ToString(it.AlarmName), Time: aws.ToTime(it.Timestamp).UTC()}
	var data struct {
		Old struct {
			Value string `json:"stateValue"`
		} `json:"oldState"`
		New struct {
			Value  string `json:"stateValue"`
			Reason string `json:"stateReason"`
		} `json:"newState"`
	}
	if json.Unmarshal([]byte(aws.ToString(it.HistoryData)), &data) == nil {
		c.From, c.To, c.Reason = data.Old.Value, data.New.Value, data.New.Reason
	}
	if c.To == "" {
		// "Alarm updated from OK to ALARM"
		if _, to, ok := strings.Cut(aws.ToString(it.HistorySummary), " to "); ok {
			c.To = strings.TrimSpace(to)
		}
	}
	return c
}

// AlarmMetric is what an alarm watches.
type AlarmMetric struct {
	Namespace  string            `json:"namespace"`
	Metric     string            `json:"metric"`
	Dimensions map[string]string `json:"dimensions"`
	Threshold  float64           `json:"threshold"`
}

// AlarmMetrics reads the metric of each named alarm (100 names a call, the
// API's bound). A deleted alarm is absent from the map.
func AlarmMetrics(ctx context.Context, cw HistoryAPI, names []string) (map[string]AlarmMetric, error) {
	out := map[string]AlarmMetric{}
	for i := 0; i < len(names); i += 100 {
		in := &cloudwatch.DescribeAlarmsInput{AlarmNames: names[i:min(i+100, len(names))], AlarmTypes: []types.AlarmType{types.AlarmTypeMetricAlarm}}
		for {
			page, err := cw.DescribeAlarms(ctx, in)
			if err != nil {
				return nil, fmt.Errorf("cloudwatch describe-alarms: %w", err)
			}
			for _, a := range page.MetricAlarms {
				m := AlarmMetric{Namespace: aws.ToString(a.Namespace), Metric: aws.ToString(a.MetricName), Dimensions: map[string]string{}, Threshold: aws.ToFloat64(a.Threshold)}
				for _, d := range a.Dimensions {
					m.Dimensions[aws.ToString(d.Name)] = aws.ToString(d.Value)
				}
				out[aws.ToString(a.AlarmName)] = m
			}
			if aws.ToString(page.NextToken) == "" {
				break
			}
			in.NextToken = page.NextToken
		}
	}
	return out, nil
}
