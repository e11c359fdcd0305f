package check

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// AlarmReading is the region's alarms as check read them, once for every
// DLQ it judges there: DescribeAlarms over metric and composite alarms
// (cwapi.ReadAlarms, the listing ls reads), since DescribeAlarmsForMetric
// returns neither metric-math nor composite alarms — a DLQ watched by a
// math alarm read "no alarm". Unknown is why they could not be read.
type AlarmReading struct {
	Listed  *cwapi.Alarms
	Unknown string
	Err     error
	// Warning is what the listing could not see though it was read
	// (composite alarms, to a role scoped narrower than *); "" otherwise.
	Warning string
}

// ReadAlarms lists the region's alarms for check; a failure is kept, for
// the caller to tell a refusal (a warning finding) from an error.
func ReadAlarms(ctx context.Context, cw cwapi.DescribeAlarmsAPI) AlarmReading {
	all, err := cwapi.ReadAlarms(ctx, cw)
	if err != nil {
		return AlarmReading{Err: err, Unknown: sqsapi.ErrorCode(err) + " on cloudwatch:DescribeAlarms"}
	}
	r := AlarmReading{Listed: all}
	if all.CompositesUnknown {
		r.Warning = "composite alarms unknown (cloudwatch:DescribeAlarms on resource * reads them, docs/iam.md): an alarm that notifies only through one is taken for silent"
	}
	return r
}

// Fill sets what in is judged on from the listing: the alarms on the DLQ's
// visible messages, those on each source's age of oldest message, and the
// composite alarms that notify for any of them (Notifiers).
func (r AlarmReading) Fill(in *CheckInput) {
	if r.Listed == nil {
		// Unknown, not absent: every alarm finding says so.
		in.AlarmsUnknown, in.AgeAlarms = r.Unknown, map[string][]cwtypes.MetricAlarm{}
		return
	}
	in.Alarms = r.Listed.On(in.DLQ.Name, cwapi.MetricVisible)
	in.AgeAlarms = map[string][]cwtypes.MetricAlarm{}
	for _, src := range in.Sources {
		in.AgeAlarms[src.Name] = r.Listed.On(src.Name, cwapi.MetricAgeOfOldest)
	}
	in.Notifiers, in.NotifierStuck = map[string]string{}, map[string]*string{}
	watched := append([]cwtypes.MetricAlarm{}, in.Alarms...)
	for _, as := range in.AgeAlarms {
		watched = append(watched, as...)
	}
	for _, a := range watched {
		name := aws.ToString(a.AlarmName)
		for _, c := range r.Listed.Parents(name) {
			if len(c.AlarmActions) == 0 || (c.ActionsEnabled != nil && !*c.ActionsEnabled) {
				continue
			}
			if c.StateValue != cwtypes.StateValueAlarm {
				in.Notifiers[name] = aws.ToString(c.AlarmName)
				delete(in.NotifierStuck, name)
				break
			}
			// In ALARM: it notifies of nothing new until it leaves it; a
			// composite over this alarm that is not is preferred.
			if in.Notifiers[name] == "" {
				in.Notifiers[name] = aws.ToString(c.AlarmName)
				in.NotifierStuck[name] = aws.String(sinceText(c.StateTransitionedTimestamp, c.StateUpdatedTimestamp))
			}
		}
	}
}

// notifies says how a notifies: its own actions, or a composite alarm over
// it that has actions; "" when nobody is told.
func notifies(a cwtypes.MetricAlarm, notifiers map[string]string) string {
	if len(a.AlarmActions) > 0 && (a.ActionsEnabled == nil || *a.ActionsEnabled) {
		return "notifies " + plural.Of(len(a.AlarmActions), "action")
	}
	if c := notifiers[aws.ToString(a.AlarmName)]; c != "" {
		return "notifies through the composite alarm " + c
	}
	return ""
}

// stuck says, for an alarm in ALARM, that it will not tell of a new
// message: an alarm's actions run when its state changes, and one already
// in ALARM stays there while the DLQ holds anything.
func stuck(a cwtypes.MetricAlarm) string {
	if a.StateValue != cwtypes.StateValueAlarm {
		return ""
	}
	return fmt.Sprintf("is in ALARM%s: its actions run only when its state changes, so a new message tells no one until the DLQ is emptied",
		sinceText(a.StateTransitionedTimestamp, a.StateUpdatedTimestamp))
}

// sinceText is " since <when an alarm's state last changed>", its last
// update when the transition is not known, "" when neither is.
func sinceText(transitioned, updated *time.Time) string {
	for _, t := range []*time.Time{transitioned, updated} {
		if t != nil {
			return " since " + t.UTC().Format("2006-01-02 15:04 UTC")
		}
	}
	return ""
}
