// Package compositealarms is a local stand-in for CloudWatch's composite
// alarms, which moto 5.2.1 lacks (no PutCompositeAlarm). It sits in front
// of moto like internal/alarmhistory: it answers PutCompositeAlarm,
// DescribeAlarms (metric alarms read from moto, composite ones its own),
// SetAlarmState and DeleteAlarms of its composite alarms in the awsQuery
// protocol mfdlq speaks to CloudWatch, and passes every other call — and
// every call on a metric alarm — through to moto.
//
// What it keeps from the API reference: a new composite alarm starts in
// INSUFFICIENT_DATA and is then evaluated, the only time it is ever in
// that state; an update keeps its state; its rule (1 to 10,240
// characters) names at most 100 alarms, all existing, with ALARM(), OK(),
// INSUFFICIENT_DATA(), TRUE, FALSE, NOT, AND, OR and parentheses; its
// state is ALARM when the rule is true, OK when false, re-evaluated
// whenever it is read, and it changes at the moment the child that made it
// change was updated. DescribeAlarms returns metric alarms only unless
// AlarmTypes asks for composite ones; it takes at most 100 AlarmNames,
// not with AlarmNamePrefix; MaxRecords 1-100 (default 50) over the alarms
// of both types, sorted by name; a NextToken good only with the same
// parameters. Deny makes a call answer AccessDenied, as for a role whose
// cloudwatch:DescribeAlarms is not scoped to * (composite alarms need *).
//
// For metric alarms, which moto serves, it adds what moto lacks:
// StateTransitionedTimestamp (moto's StateUpdatedTimestamp also moves when
// a state is set again unchanged), a new alarm's INSUFFICIENT_DATA (moto
// starts it in OK) and an updated alarm keeping its state (moto resets it).
//
// AlarmActions are kept and returned (never run); a metric alarm's
// StateReasonData and a metric-math alarm's Metrics are returned as moto
// keeps them.
//
// Not modelled: running actions, suppressors, tags, the 150 composites an alarm
// may be part of.
package compositealarms

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/standin"
)

// Region and Account name the stand-in's alarms in their ARNs.
const (
	Region  = "us-east-1"
	Account = "123456789012"
)

// Server is the stand-in; it is an http.Handler.
type Server struct {
	Now   func() time.Time
	proxy *httputil.ReverseProxy
	moto  *cloudwatch.Client

	mu     sync.Mutex
	alarms map[string]*composite
	deny   map[string]bool
	calls  map[string]int
	// transitioned is, per metric alarm, when its state last changed:
	// moto keeps only StateUpdatedTimestamp, which also moves when a
	// state is set again unchanged.
	transitioned map[string]time.Time
}

type composite struct {
	name, description, rule string
	parsed                  rule
	actionsEnabled          bool
	actions                 []string // AlarmActions
	state, reason           string
	transitioned, updated   time.Time
	configured              time.Time
	// held is a state SetAlarmState put, kept until a child changes.
	held bool
	// childStamp is the latest child update the state was judged on.
	childStamp time.Time
}

// New returns a stand-in in front of backend (moto's URL).
func New(backend string) (*Server, error) {
	proxy, err := standin.To(backend)
	if err != nil {
		return nil, err
	}
	cfg := aws.Config{Region: Region, BaseEndpoint: aws.String(backend),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		})}
	return &Server{Now: time.Now, proxy: proxy, moto: cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch),
		alarms: map[string]*composite{}, deny: map[string]bool{}, calls: map[string]int{}, transitioned: map[string]time.Time{}}, nil
}

// Deny makes action (DescribeAlarms…) answer AccessDenied, or serve again
// with on false.
func (s *Server) Deny(action string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deny[action] = on
}

// Calls is how many calls of action the stand-in received.
func (s *Server) Calls(action string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[action]
}

// ServeHTTP answers the composite alarms' calls and passes the rest to
// moto.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := standin.Body(r, 8<<20)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	passTo := func(w http.ResponseWriter) { s.proxy.ServeHTTP(w, r) } // at most once: Body put the body back
	pass := func() { passTo(w) }
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		pass()
		return
	}
	form, _ := url.ParseQuery(string(body))
	action := form.Get("Action")
	s.mu.Lock()
	s.calls[action]++
	denied := s.deny[action]
	s.mu.Unlock()
	if denied {
		writeErr(w, http.StatusForbidden, "AccessDenied", "User: arn:aws:sts::"+Account+":assumed-role/oncall/x is not authorized to perform: cloudwatch:"+action)
		return
	}
	ctx := r.Context()
	var out any
	var ae *apiError
	switch action {
	case "PutCompositeAlarm":
		out, ae = s.put(ctx, form)
	case "DescribeAlarms":
		out, ae = s.describe(ctx, form)
	case "SetAlarmState":
		if !s.isComposite(form.Get("AlarmName")) {
			s.metricCall(ctx, w, form, passTo)
			return
		}
		out, ae = s.setState(form)
	case "PutMetricAlarm":
		s.metricCall(ctx, w, form, passTo)
		return
	case "DeleteAlarms":
		s.deleteComposites(form)
		pass()
		return
	default:
		pass()
		return
	}
	if ae != nil {
		writeErr(w, http.StatusBadRequest, ae.code, ae.msg)
		return
	}
	writeXML(w, out)
}

type apiError struct{ code, msg string }

func validation(format string, args ...any) *apiError {
	return &apiError{"ValidationError", fmt.Sprintf(format, args...)}
}

func (s *Server) isComposite(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.alarms[name] != nil
}

func (s *Server) deleteComposites(form url.Values) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range members(form, "AlarmNames") {
		delete(s.alarms, n)
		delete(s.transitioned, n)
	}
}

// setState is SetAlarmState on a composite alarm: the state holds until
// one of its children changes.
func (s *Server) setState(form url.Values) (any, *apiError) {
	v := form.Get("StateValue")
	if v != "OK" && v != "ALARM" && v != "INSUFFICIENT_DATA" {
		return nil, validation("1 validation error detected: Value '%s' at 'stateValue' failed to satisfy constraint: Member must satisfy enum value set: [INSUFFICIENT_DATA, ALARM, OK]", v)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.alarms[form.Get("AlarmName")]
	now := s.Now().UTC()
	if a.state != v {
		a.transitioned = now
	}
	a.state, a.reason, a.updated, a.held = v, form.Get("StateReason"), now, true
	return emptyResponse("SetAlarmState"), nil
}

// members reads an awsQuery list: Name.member.1, Name.member.2…
func members(form url.Values, name string) []string {
	var out []string
	for i := 1; ; i++ {
		v, ok := form[name+".member."+strconv.Itoa(i)]
		if !ok || len(v) == 0 {
			return out
		}
		out = append(out, v[0])
	}
}
