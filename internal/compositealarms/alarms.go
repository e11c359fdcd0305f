package compositealarms

import (
	"context"
	"fmt"
	"github.com/mfdlq/mfdlq/internal/alarmhistory"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
)

// The API reference's bounds.
const (
	maxRuleLength     = 10240
	maxRuleAlarms     = 100
	maxAlarmNames     = 100
	maxNameLength     = 255
	defaultMaxRecords = 50
)

// put is PutCompositeAlarm.
func (s *Server) put(ctx context.Context, form url.Values) (any, *apiError) {
	name, text := form.Get("AlarmName"), form.Get("AlarmRule")
	switch {
	case name == "":
		return nil, &apiError{"MissingParameter", "The request must contain the parameter AlarmName."}
	case len([]rune(name)) > maxNameLength:
		return nil, validation("1 validation error detected: Value at 'alarmName' failed to satisfy constraint: Member must have length less than or equal to %d", maxNameLength)
	case text == "":
		return nil, &apiError{"MissingParameter", "The request must contain the parameter AlarmRule."}
	case len(text) > maxRuleLength:
		return nil, validation("1 validation error detected: Value at 'alarmRule' failed to satisfy constraint: Member must have length less than or equal to %d", maxRuleLength)
	}
	r, err := parseRule(text)
	if err != nil {
		return nil, validation("AlarmRule is not valid: %v", err)
	}
	children := ruleNames(r)
	if len(children) > maxRuleAlarms {
		return nil, validation("The AlarmRule can reference at most %d alarms, it references %d", maxRuleAlarms, len(children))
	}
	metric, err := s.metricAlarms(ctx)
	if err != nil {
		return nil, &apiError{"InternalFailure", err.Error()}
	}
	if _, ok := metric[name]; ok {
		return nil, validation("An alarm named %s already exists and is not a composite alarm", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var missing []string
	for _, c := range children {
		if _, ok := metric[c]; !ok && s.alarms[c] == nil && c != name {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 || contains(children, name) {
		if contains(children, name) {
			return nil, validation("The AlarmRule of %s cannot reference itself", name)
		}
		return nil, validation("Could not save the composite alarm as alarms [%s] in the alarm rule do not exist", strings.Join(missing, ", "))
	}
	now := s.Now().UTC()
	a := s.alarms[name]
	if a == nil {
		a = &composite{name: name, state: "INSUFFICIENT_DATA", reason: "Unchecked: Initial alarm creation", transitioned: now, updated: now}
		s.alarms[name] = a
	}
	a.description, a.rule, a.parsed, a.configured = form.Get("AlarmDescription"), text, r, now
	a.actionsEnabled = form.Get("ActionsEnabled") != "false"
	a.actions = members(form, "AlarmActions")
	a.held = false
	s.evaluate(metric, now)
	return emptyResponse("PutCompositeAlarm"), nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func ruleNames(r rule) []string {
	seen := map[string]bool{}
	var out []string
	r.names(func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	})
	return out
}

// metricAlarms reads every metric alarm from moto, by name.
func (s *Server) metricAlarms(ctx context.Context) (map[string]types.MetricAlarm, error) {
	out := map[string]types.MetricAlarm{}
	in := &cloudwatch.DescribeAlarmsInput{AlarmTypes: []types.AlarmType{types.AlarmTypeMetricAlarm}}
	for page := 0; page < 100; page++ {
		res, err := s.moto.DescribeAlarms(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("read moto's metric alarms: %w", err)
		}
		for _, a := range res.MetricAlarms {
			out[aws.ToString(a.AlarmName)] = a
		}
		if aws.ToString(res.NextToken) == "" {
			break
		}
		in.NextToken = res.NextToken
	}
	return out, nil
}

// evaluate re-judges every composite alarm from its children (metric
// ones from moto, composite ones in turn); s.mu is held. A state changes
// at the moment its latest child was updated, never before its own last
// change and never after now.
func (s *Server) evaluate(metric map[string]types.MetricAlarm, now time.Time) {
	done := map[string]bool{}
	var judge func(a *composite, path map[string]bool)
	state := func(name string, path map[string]bool) (string, time.Time) {
		if m, ok := metric[name]; ok {
			return string(m.StateValue), aws.ToTime(m.StateUpdatedTimestamp)
		}
		c := s.alarms[name]
		if c == nil {
			return "INSUFFICIENT_DATA", time.Time{}
		}
		if !path[name] {
			judge(c, path)
		}
		return c.state, c.updated
	}
	judge = func(a *composite, path map[string]bool) {
		if done[a.name] {
			return
		}
		path[a.name] = true
		defer delete(path, a.name)
		var stamp time.Time
		for _, n := range ruleNames(a.parsed) {
			if _, t := state(n, path); t.After(stamp) {
				stamp = t
			}
		}
		done[a.name] = true
		if a.held && !stamp.After(a.childStamp) {
			return
		}
		want := "OK"
		if a.parsed.eval(func(n string) string { st, _ := state(n, path); return st }) {
			want = "ALARM"
		}
		a.held, a.childStamp = false, stamp
		if want == a.state {
			return
		}
		at := stamp
		if at.Before(a.transitioned) {
			at = a.transitioned
		}
		if at.After(now) || at.IsZero() {
			at = now
		}
		a.state, a.transitioned, a.updated = want, at, at
		a.reason = fmt.Sprintf("arn:aws:cloudwatch:%s:%s:alarm:%s transitioned to %s", Region, Account, a.name, want)
	}
	for _, a := range s.alarms {
		judge(a, map[string]bool{})
	}
}

// describe is DescribeAlarms over moto's metric alarms and the stand-in's
// composite ones.
func (s *Server) describe(ctx context.Context, form url.Values) (any, *apiError) {
	names := members(form, "AlarmNames")
	prefix, stateValue := form.Get("AlarmNamePrefix"), form.Get("StateValue")
	wantMetric, wantComposite := true, false
	if ts := members(form, "AlarmTypes"); len(ts) > 0 {
		wantMetric = false
		for _, t := range ts {
			switch t {
			case "MetricAlarm":
				wantMetric = true
			case "CompositeAlarm":
				wantComposite = true
			case "LogAlarm":
			default:
				return nil, validation("1 validation error detected: Value '%s' at 'alarmTypes' failed to satisfy constraint: Member must satisfy enum value set: [CompositeAlarm, LogAlarm, MetricAlarm]", t)
			}
		}
	}
	size := defaultMaxRecords
	switch {
	case len(names) > maxAlarmNames:
		return nil, validation("1 validation error detected: Value at 'alarmNames' failed to satisfy constraint: Member must have length less than or equal to %d", maxAlarmNames)
	case len(names) > 0 && prefix != "":
		return nil, &apiError{"InvalidParameterCombination", "AlarmNamePrefix and AlarmNames cannot both be specified"}
	case stateValue != "" && stateValue != "OK" && stateValue != "ALARM" && stateValue != "INSUFFICIENT_DATA":
		return nil, validation("1 validation error detected: Value '%s' at 'stateValue' failed to satisfy constraint: Member must satisfy enum value set: [INSUFFICIENT_DATA, ALARM, OK]", stateValue)
	}
	if v := form.Get("MaxRecords"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return nil, validation("1 validation error detected: Value '%s' at 'maxRecords' failed to satisfy constraint: Member must have value between 1 and 100", v)
		}
		size = n
	}
	off := 0
	if tok := form.Get("NextToken"); tok != "" {
		var err error
		if off, err = alarmhistory.PageOffset(tok, form); err != nil {
			return nil, &apiError{"InvalidNextToken", "The service couldn't process your request because the NextToken is not valid"}
		}
	}
	metric, err := s.metricAlarms(ctx)
	if err != nil {
		return nil, &apiError{"InternalFailure", err.Error()}
	}
	match := func(name, state string) bool {
		return (len(names) == 0 || contains(names, name)) && strings.HasPrefix(name, prefix) && (stateValue == "" || state == stateValue)
	}
	type item struct {
		metric    *types.MetricAlarm
		composite *compositeMember
	}
	var items []item
	if wantMetric {
		for n, a := range metric {
			if match(n, string(a.StateValue)) {
				a.StateTransitionedTimestamp = s.transitionOf(a)
				items = append(items, item{metric: &a})
			}
		}
	}
	s.mu.Lock()
	s.evaluate(metric, s.Now().UTC())
	if wantComposite {
		for n, a := range s.alarms {
			if match(n, a.state) {
				m := a.member()
				items = append(items, item{composite: &m})
			}
		}
	}
	s.mu.Unlock()
	nameOf := func(it item) string {
		if it.metric != nil {
			return aws.ToString(it.metric.AlarmName)
		}
		return it.composite.AlarmName
	}
	sort.Slice(items, func(i, j int) bool { return nameOf(items[i]) < nameOf(items[j]) })
	out := &describeResponse{NS: namespace, RequestID: requestID}
	for i := off; i < len(items) && i < off+size; i++ {
		if it := items[i]; it.metric != nil {
			out.Result.Metric = append(out.Result.Metric, metricMember(*it.metric))
		} else {
			out.Result.Composite = append(out.Result.Composite, *it.composite)
		}
	}
	if off+size < len(items) {
		out.Result.NextToken = alarmhistory.PageToken(off+size, form)
	}
	return out, nil
}
