package compositealarms

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
)

// metricCall passes SetAlarmState or PutMetricAlarm of a metric alarm to
// moto and keeps what CloudWatch does and moto does not: when the alarm's
// state last changed (StateTransitionedTimestamp); a new alarm starting
// in INSUFFICIENT_DATA; an updated one keeping its state (moto makes a new
// alarm, in OK).
func (s *Server) metricCall(ctx context.Context, w http.ResponseWriter, form url.Values, passTo func(http.ResponseWriter)) {
	name := form.Get("AlarmName")
	before, existed := s.metricState(ctx, name)
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	passTo(sw)
	if sw.status != http.StatusOK {
		return
	}
	now := s.Now().UTC()
	switch {
	case form.Get("Action") == "SetAlarmState":
		if !existed || string(before.StateValue) != form.Get("StateValue") {
			s.markTransition(name, now)
		}
	case !existed:
		s.setMotoState(ctx, name, types.StateValueInsufficientData, "Unchecked: Initial alarm creation")
		s.markTransition(name, now)
	default:
		s.setMotoState(ctx, name, before.StateValue, aws.ToString(before.StateReason))
	}
}

// statusWriter remembers the status a pass-through answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (s *Server) metricState(ctx context.Context, name string) (types.MetricAlarm, bool) {
	out, err := s.moto.DescribeAlarms(ctx, &cloudwatch.DescribeAlarmsInput{AlarmNames: []string{name}, AlarmTypes: []types.AlarmType{types.AlarmTypeMetricAlarm}})
	if err != nil {
		return types.MetricAlarm{}, false
	}
	for _, a := range out.MetricAlarms {
		if aws.ToString(a.AlarmName) == name {
			return a, true
		}
	}
	return types.MetricAlarm{}, false
}

func (s *Server) setMotoState(ctx context.Context, name string, state types.StateValue, reason string) {
	_, _ = s.moto.SetAlarmState(ctx, &cloudwatch.SetAlarmStateInput{AlarmName: aws.String(name), StateValue: state, StateReason: aws.String(reason)})
}

func (s *Server) markTransition(name string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.transitioned[name] = at
}

// transitionOf is when a metric alarm's state last changed as the
// stand-in saw it; an alarm it never saw change keeps moto's
// StateUpdatedTimestamp.
func (s *Server) transitionOf(a types.MetricAlarm) *time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.transitioned[aws.ToString(a.AlarmName)]; ok {
		return &t
	}
	return a.StateUpdatedTimestamp
}
