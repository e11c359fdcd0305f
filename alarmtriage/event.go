package alarmtriage

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mfdlq/mfdlq/untrusted"
)

// Event is EventBridge's envelope of an event, the fields mfdlq reads.
type Event struct {
	DetailType string          `json:"detail-type"`
	Source     string          `json:"source"`
	Account    string          `json:"account"`
	Region     string          `json:"region"`
	Resources  []string        `json:"resources"`
	Detail     json.RawMessage `json:"detail"`
}

// alarmDetail is the detail of a "CloudWatch Alarm State Change" event
// (the CloudWatch user guide's "Alarm events and EventBridge").
type alarmDetail struct {
	AlarmName     string     `json:"alarmName"`
	State         alarmState `json:"state"`
	PreviousState alarmState `json:"previousState"`
	Configuration struct {
		Metrics []struct {
			ID         string `json:"id"`
			Expression string `json:"expression"`
			MetricStat *struct {
				Metric struct {
					Namespace  string            `json:"namespace"`
					Name       string            `json:"name"`
					Dimensions map[string]string `json:"dimensions"`
				} `json:"metric"`
			} `json:"metricStat"`
		} `json:"metrics"`
		AlarmRule string `json:"alarmRule"`
	} `json:"configuration"`
	// AlarmTags are there only when the alarm propagates its tags.
	AlarmTags map[string]string `json:"alarmTags"`
}

type alarmState struct {
	Value     string `json:"value"`
	Reason    string `json:"reason"`
	Timestamp string `json:"timestamp"`
}

// Alarm is what the function needs of an alarm event.
type Alarm struct {
	ARN, Name, Account, Region string
	State, Previous            string // ALARM, OK, INSUFFICIENT_DATA
	StateTime                  string // the state's timestamp, as sent
	Reason                     string // sanitised, bounded
	// Queue is the DLQ the alarm watches ("" for an alarm on no queue).
	Queue string
	// Tags are the alarm's propagated tags; nil when the event has none.
	Tags map[string]string
}

// Into tells a move into ALARM: the start of an episode.
func (a Alarm) Into() bool { return a.State == "ALARM" && a.Previous != "ALARM" }

// BadEventError is an event the function cannot act on: its one line
// says what was wrong and what to change.
type BadEventError struct{ Why string }

func (e *BadEventError) Error() string { return "bad event: " + e.Why }

var (
	accountRE = regexp.MustCompile(`^\d{12}$`)
	regionRE  = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-\d{1,2}$`)
	queueRE   = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}(\.fifo)?$`)
	alarmRE   = regexp.MustCompile(`^arn:aws[a-z-]*:cloudwatch:[a-z0-9-]+:\d{12}:alarm:.{1,255}$`)
)

// maxEvent bounds the event read: an alarm event is a few KiB.
const maxEvent = 256 << 10

// ParseAlarm reads an EventBridge alarm state change event. Another
// event, an alarm that names no queue or more than one, and any field
// that is not what AWS sends are a *BadEventError.
func ParseAlarm(raw []byte) (Alarm, error) {
	if len(raw) > maxEvent {
		return Alarm{}, &BadEventError{Why: fmt.Sprintf("%d bytes, more than an alarm event's %d", len(raw), maxEvent)}
	}
	var ev Event
	if err := json.Unmarshal(raw, &ev); err != nil {
		return Alarm{}, &BadEventError{Why: "not a JSON object (" + untrusted.Shorten(untrusted.Cell(err.Error()), 120) + "): the function takes EventBridge's CloudWatch Alarm State Change events"}
	}
	if ev.Source != "aws.cloudwatch" || ev.DetailType != "CloudWatch Alarm State Change" {
		return Alarm{}, &BadEventError{Why: fmt.Sprintf("source %q, detail-type %q: the function takes only aws.cloudwatch's CloudWatch Alarm State Change (the deploy/ rule's pattern)",
			shown(ev.Source), shown(ev.DetailType))}
	}
	var d alarmDetail
	if err := json.Unmarshal(ev.Detail, &d); err != nil {
		return Alarm{}, &BadEventError{Why: "its detail is not an alarm's (" + untrusted.Shorten(untrusted.Cell(err.Error()), 120) + ")"}
	}
	a := Alarm{Name: d.AlarmName, Account: ev.Account, Region: ev.Region, State: d.State.Value, Previous: d.PreviousState.Value,
		StateTime: d.State.Timestamp, Reason: untrusted.Shorten(untrusted.Cell(d.State.Reason), 300), Tags: d.AlarmTags}
	if len(ev.Resources) == 1 {
		a.ARN = ev.Resources[0]
	}
	switch {
	case !alarmRE.MatchString(a.ARN):
		return Alarm{}, &BadEventError{Why: fmt.Sprintf("resources %q hold no alarm ARN", shownList(ev.Resources))}
	case !accountRE.MatchString(a.Account) || !regionRE.MatchString(a.Region):
		return Alarm{}, &BadEventError{Why: fmt.Sprintf("account %q, region %q are not an account and a region", shown(a.Account), shown(a.Region))}
	case a.StateTime == "" || len(a.StateTime) > 64:
		return Alarm{}, &BadEventError{Why: "its state has no timestamp: the episode cannot be told apart"}
	}
	if !a.Into() {
		return a, nil
	}
	q, err := queueOf(d)
	if err != nil {
		return Alarm{}, err
	}
	a.Queue = q
	return a, nil
}

// queueOf is the one SQS queue the alarm's metrics name.
func queueOf(d alarmDetail) (string, error) {
	if d.Configuration.AlarmRule != "" {
		return "", &BadEventError{Why: fmt.Sprintf("alarm %q is a composite alarm, which names no queue: point the rule at the DLQ's own metric alarm", shown(d.AlarmName))}
	}
	seen := map[string]bool{}
	for _, m := range d.Configuration.Metrics {
		if m.MetricStat == nil || m.MetricStat.Metric.Namespace != "AWS/SQS" {
			continue
		}
		if q, ok := m.MetricStat.Metric.Dimensions["QueueName"]; ok {
			if !queueRE.MatchString(q) {
				return "", &BadEventError{Why: fmt.Sprintf("alarm %q names %q, not a queue name", shown(d.AlarmName), shown(q))}
			}
			seen[q] = true
		}
	}
	qs := slices.Sorted(maps.Keys(seen))
	switch len(qs) {
	case 0:
		return "", &BadEventError{Why: fmt.Sprintf("alarm %q watches no AWS/SQS metric with a QueueName dimension: the function triages a DLQ's alarm", shown(d.AlarmName))}
	case 1:
		return qs[0], nil
	}
	return "", &BadEventError{Why: fmt.Sprintf("alarm %q watches %d queues (%s): give the DLQ an alarm of its own", shown(d.AlarmName), len(qs), strings.Join(qs, ", "))}
}

// shown is a value from the event as an error may quote it.
func shown(s string) string { return untrusted.Shorten(untrusted.Cell(s), 100) }

func shownList(ss []string) string {
	if len(ss) > 3 {
		ss = append(ss[:3:3], "…")
	}
	return shown(strings.Join(ss, ", "))
}
