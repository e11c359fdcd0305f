package health

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/untrusted"
)

// The alarm types a read asks for: without AlarmTypes DescribeAlarms
// returns metric alarms only, and a composite alarm would look missing.
const (
	TypeMetric    = "metric"
	TypeComposite = "composite"
)

// The states of an alarm, as CloudWatch names them.
const (
	StateOK               = string(types.StateValueOk)
	StateAlarm            = string(types.StateValueAlarm)
	StateInsufficientData = string(types.StateValueInsufficientData)
)

// MaxAlarms is how many alarms one wait may name: DescribeAlarms takes at
// most 100 AlarmNames, so every read is one call (one page, MaxRecords
// 100).
const MaxAlarms = 100

// maxPages bounds one read: 100 names fit one page of 100; a server that
// pages more than this is not answering the question asked.
const maxPages = 5

// Alarm is one alarm as one read saw it.
type Alarm struct {
	Name  string    `json:"name"`
	Type  string    `json:"type"`
	State string    `json:"state"`
	Since time.Time `json:"since"`
	// Reason is CloudWatch's state reason, bounded; untrusted text.
	Reason string `json:"reason,omitempty"`
	// Missing is a metric alarm's TreatMissingData (CloudWatch's default
	// "missing" when unset); "" for a composite alarm.
	Missing string `json:"treat_missing_data,omitempty"`

	// metric is a metric alarm's definition and rule a composite's
	// AlarmRule: what the data proof reads (data.go).
	metric *types.MetricAlarm
	rule   string
}

// NotFoundError names alarms that do not exist in the account and region
// (exit 5): a typo waited on for six hours would never turn OK.
type NotFoundError struct{ Names []string }

func (e *NotFoundError) Error() string {
	q := make([]string, len(e.Names))
	for i, n := range e.Names {
		q[i] = Quote(n)
	}
	return fmt.Sprintf("no CloudWatch alarm %s in this account and region: check the name (aws cloudwatch describe-alarms --alarm-types MetricAlarm CompositeAlarm) and --region", strings.Join(q, ", "))
}

// DeniedError is a read the role may not make (exit 4).
type DeniedError struct{ Err error }

func (e *DeniedError) Error() string {
	return fmt.Sprintf("read the alarms: permission denied (%s): the role needs cloudwatch:DescribeAlarms on resource * to read composite alarms (docs/iam.md)", awserr.Code(e.Err))
}

func (e *DeniedError) Unwrap() error { return e.Err }

// Quote is an alarm name as it may appear on a terminal: sanitised,
// bounded and quoted. Alarm names are anyone's text.
func Quote(name string) string {
	return `"` + untrusted.Shorten(untrusted.Terminal(name), 120) + `"`
}

// CheckNames is the flag check made before any AWS call: 1 to MaxAlarms
// names, each 1 to 255 characters of UTF-8 without control characters
// (PutMetricAlarm's own rule), duplicates dropped.
func CheckNames(names []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case n == "":
			return nil, errors.New("--when-ok: an alarm name is empty (ALARM[,ALARM…], a name holding a comma in double quotes)")
		case !utf8.ValidString(n) || len([]rune(n)) > 255:
			return nil, fmt.Errorf("--when-ok %s: an alarm name is 1 to 255 characters of UTF-8", Quote(n))
		case strings.ContainsFunc(n, func(r rune) bool { return r < 0x20 || r == 0x7f }):
			return nil, fmt.Errorf("--when-ok %s: an alarm name holds no control characters", Quote(n))
		case seen[n]:
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("--when-ok needs an alarm name")
	}
	if len(out) > MaxAlarms {
		return nil, fmt.Errorf("--when-ok names %d alarms, at most %d (one DescribeAlarms call): use a composite alarm over them", len(out), MaxAlarms)
	}
	return out, nil
}

// Read reads the named alarms, metric and composite, in the order named.
// An alarm that does not exist is a *NotFoundError, a denied read a
// *DeniedError; any other failure is returned wrapped.
func Read(ctx context.Context, cw AlarmsAPI, names []string) ([]Alarm, error) {
	got, err := describe(ctx, cw, names)
	if err != nil {
		return nil, err
	}
	alarms := make([]Alarm, 0, len(names))
	var missing []string
	for _, n := range names {
		a, ok := got[n]
		if !ok {
			missing = append(missing, n)
			continue
		}
		alarms = append(alarms, a)
	}
	if len(missing) > 0 {
		return nil, &NotFoundError{Names: missing}
	}
	return alarms, nil
}

// describe reads up to MaxAlarms alarms by name, metric and composite; a
// name CloudWatch does not know is absent from the map.
func describe(ctx context.Context, cw AlarmsAPI, names []string) (map[string]Alarm, error) {
	in := &cloudwatch.DescribeAlarmsInput{
		AlarmNames: names,
		AlarmTypes: []types.AlarmType{types.AlarmTypeMetricAlarm, types.AlarmTypeCompositeAlarm},
		MaxRecords: aws.Int32(100),
	}
	got := map[string]Alarm{}
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("read the alarms: more than %d pages for %d names", maxPages, len(names))
		}
		out, err := cw.DescribeAlarms(ctx, in)
		if err != nil {
			if awserr.Denied(err) {
				return nil, &DeniedError{Err: err}
			}
			return nil, fmt.Errorf("read the alarms: %w", err)
		}
		for _, a := range out.MetricAlarms {
			a := a
			got[aws.ToString(a.AlarmName)] = Alarm{Name: aws.ToString(a.AlarmName), Type: TypeMetric, State: string(a.StateValue),
				Since: since(a.StateTransitionedTimestamp, a.StateUpdatedTimestamp), Reason: reason(a.StateReason),
				Missing: cmp.Or(aws.ToString(a.TreatMissingData), MissingDefault), metric: &a}
		}
		for _, a := range out.CompositeAlarms {
			got[aws.ToString(a.AlarmName)] = Alarm{Name: aws.ToString(a.AlarmName), Type: TypeComposite, State: string(a.StateValue),
				Since: since(a.StateTransitionedTimestamp, a.StateUpdatedTimestamp), Reason: reason(a.StateReason), rule: aws.ToString(a.AlarmRule)}
		}
		if aws.ToString(out.NextToken) == "" {
			return got, nil
		}
		in.NextToken = out.NextToken
	}
}

// since is when the alarm's state last changed: StateTransitionedTimestamp
// (the last change of StateValue), else StateUpdatedTimestamp, which also
// moves on updates that keep the state (later, so never a longer streak).
func since(transitioned, updated *time.Time) time.Time {
	if transitioned != nil && !transitioned.IsZero() {
		return transitioned.UTC()
	}
	return aws.ToTime(updated).UTC()
}

func reason(s *string) string { return untrusted.Head(aws.ToString(s), 200) }
