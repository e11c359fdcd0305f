// Package cloudtrail is a local stand-in for CloudTrail's LookupEvents,
// which moto does not implement, built from the API reference: the AWS JSON
// 1.1 protocol the SDK speaks; at most one lookup attribute per call, of
// the eight documented keys; MaxResults 1-50 (default 50) with a NextToken
// that is only good with the same parameters; StartTime not after EndTime
// and within the 90 days the event history holds; events newest first, of
// the caller's region only; and two calls a second per account and region,
// beyond which it answers ThrottlingException.
//
// Tests and the demo seed it through Add, or over HTTP (POST
// /_standin/events, POST /_standin/throttle); GET /_standin/calls reports
// the calls it answered.
package cloudtrail

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limits of LookupEvents, from its API reference.
const (
	MaxResults     = 50
	CallsPerSecond = 2
	History        = 90 * 24 * time.Hour
)

// Resource is a resource an event names.
type Resource struct {
	ResourceType string `json:"ResourceType,omitempty"`
	ResourceName string `json:"ResourceName,omitempty"`
}

// Event is a seeded event: what the API returns, plus the region it
// happened in and the request parameters its JSON record carries.
type Event struct {
	EventID     string     `json:"EventId"`
	EventName   string     `json:"EventName"`
	EventSource string     `json:"EventSource"`
	EventTime   time.Time  `json:"EventTime"`
	Username    string     `json:"Username"`
	AccessKeyID string     `json:"AccessKeyId,omitempty"`
	ReadOnly    string     `json:"ReadOnly"` // "true" or "false"
	Resources   []Resource `json:"Resources,omitempty"`
	// RequestParameters are the call's parameters; the stand-in's events
	// name resources by string parameters only.
	RequestParameters map[string]string `json:"RequestParameters,omitempty"`
	Region            string            `json:"Region,omitempty"` // "" : us-east-1
}

// Calls is what the stand-in answered, for tests.
type Calls struct {
	Total     int `json:"total"`
	Throttled int `json:"throttled"`
	// MaxAttributes is the most lookup attributes any call carried
	// (refused when more than one).
	MaxAttributes int `json:"max_attributes"`
	Refused       int `json:"refused"`
}

// Server is the stand-in; it is an http.Handler.
type Server struct {
	// Now is the clock the 90 days are counted from.
	Now func() time.Time
	// Limit is the calls a second allowed per account and region.
	Limit rate.Limit
	// Deny answers every lookup AccessDeniedException, as for a role
	// without cloudtrail:LookupEvents.
	Deny bool

	mu       sync.Mutex
	events   []Event
	limiters map[string]*rate.Limiter
	throttle int // the next calls answered ThrottlingException
	calls    Calls
	seq      int
}

// New returns an empty stand-in on the system clock.
func New() *Server {
	return &Server{Now: time.Now, Limit: CallsPerSecond, limiters: map[string]*rate.Limiter{}}
}

// Add seeds events. A missing EventId is made up; a missing ReadOnly is
// "false".
func (s *Server) Add(evs ...Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range evs {
		s.seq++
		if e.EventID == "" {
			e.EventID = fmt.Sprintf("00000000-0000-4000-8000-%012d", s.seq)
		}
		if e.ReadOnly == "" {
			e.ReadOnly = "false"
		}
		if e.Region == "" {
			e.Region = "us-east-1"
		}
		e.EventTime = e.EventTime.UTC()
		s.events = append(s.events, e)
	}
}

// DenyAll makes every lookup from now on fail with AccessDeniedException.
func (s *Server) DenyAll() {
	s.mu.Lock()
	s.Deny = true
	s.mu.Unlock()
}

// ThrottleNext makes the next n calls fail with ThrottlingException, as a
// busy account's would.
func (s *Server) ThrottleNext(n int) {
	s.mu.Lock()
	s.throttle = n
	s.mu.Unlock()
}

// Calls reports the calls answered so far.
func (s *Server) Calls() Calls {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// ServeHTTP answers LookupEvents and the seeding API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_standin/") {
		s.serveSeed(w, r)
		return
	}
	target := r.Header.Get("X-Amz-Target")
	if !strings.HasSuffix(target, "CloudTrail_20131101.LookupEvents") {
		writeErr(w, 400, "UnsupportedOperationException", "the stand-in answers LookupEvents only, not "+target)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeErr(w, 400, "InvalidParameterException", err.Error())
		return
	}
	account, region := caller(r)
	s.mu.Lock()
	deny := s.Deny
	s.mu.Unlock()
	if deny {
		writeErr(w, 400, "AccessDeniedException", "User is not authorized to perform: cloudtrail:LookupEvents")
		return
	}
	if code, msg := s.admit(account + "/" + region); code != "" {
		writeErr(w, 400, code, msg)
		return
	}
	out, code, msg := s.lookup(body, region)
	if code != "" {
		s.mu.Lock()
		s.calls.Refused++
		s.mu.Unlock()
		writeErr(w, 400, code, msg)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	json.NewEncoder(w).Encode(out)
}

// admit counts the call and throttles it beyond the rate.
func (s *Server) admit(key string) (code, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls.Total++
	l, ok := s.limiters[key]
	if !ok {
		l = rate.NewLimiter(s.Limit, int(math.Max(1, float64(s.Limit))))
		s.limiters[key] = l
	}
	if s.throttle > 0 || !l.Allow() {
		if s.throttle > 0 {
			s.throttle--
		}
		s.calls.Throttled++
		return "ThrottlingException", "Rate exceeded"
	}
	return "", ""
}

var credScope = regexp.MustCompile(`Credential=([^/]+)/\d{8}/([^/]+)/`)

// caller is the access key and region of the request's signature: the
// stand-in's account and region.
func caller(r *http.Request) (account, region string) {
	m := credScope.FindStringSubmatch(r.Header.Get("Authorization"))
	if m == nil {
		return "", "us-east-1"
	}
	return m[1], m[2]
}

type lookupInput struct {
	LookupAttributes []struct {
		AttributeKey   string `json:"AttributeKey"`
		AttributeValue string `json:"AttributeValue"`
	} `json:"LookupAttributes"`
	StartTime     *float64 `json:"StartTime"`
	EndTime       *float64 `json:"EndTime"`
	EventCategory string   `json:"EventCategory"`
	MaxResults    *int     `json:"MaxResults"`
	NextToken     string   `json:"NextToken"`
}

var attributeKeys = map[string]bool{
	"EventId": true, "EventName": true, "ReadOnly": true, "Username": true,
	"ResourceType": true, "ResourceName": true, "EventSource": true, "AccessKeyId": true,
}

// lookupOutput is LookupEvents' answer.
type lookupOutput struct {
	Events    []eventOut `json:"Events"`
	NextToken string     `json:"NextToken,omitempty"`
}

// eventOut is one event of the answer, EventTime in epoch seconds as the
// JSON protocol writes timestamps.
type eventOut struct {
	EventID         string     `json:"EventId"`
	EventName       string     `json:"EventName"`
	EventSource     string     `json:"EventSource"`
	ReadOnly        string     `json:"ReadOnly"`
	EventTime       float64    `json:"EventTime"`
	Username        string     `json:"Username"`
	AccessKeyID     string     `json:"AccessKeyId"`
	Resources       []Resource `json:"Resources"`
	CloudTrailEvent string     `json:"CloudTrailEvent"`
}

func (s *Server) lookup(body []byte, region string) (*lookupOutput, string, string) {
	var in lookupInput
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, "SerializationException", err.Error()
	}
	s.mu.Lock()
	s.calls.MaxAttributes = max(s.calls.MaxAttributes, len(in.LookupAttributes))
	s.mu.Unlock()
	if code, msg := validate(&in); code != "" {
		return nil, code, msg
	}
	now := s.Now().UTC()
	start, end := now.Add(-History), now
	if in.StartTime != nil {
		start = epoch(*in.StartTime)
	}
	if in.EndTime != nil {
		end = epoch(*in.EndTime)
	}
	if start.After(end) {
		return nil, "InvalidTimeRangeException", "StartTime is after EndTime"
	}
	if start.Before(now.Add(-History - time.Minute)) {
		return nil, "InvalidTimeRangeException", "StartTime is outside the 90 days of event history"
	}
	size := MaxResults
	if in.MaxResults != nil {
		size = *in.MaxResults
	}
	offset, code, msg := s.offset(&in)
	if code != "" {
		return nil, code, msg
	}
	match := s.matching(&in, region, start, end)
	out := &lookupOutput{Events: page(match, offset, size)}
	if offset+size < len(match) {
		out.NextToken = token(&in, offset+size)
	}
	return out, "", ""
}

func validate(in *lookupInput) (string, string) {
	if len(in.LookupAttributes) > 1 {
		return "InvalidLookupAttributesException", "You cannot specify more than one lookup attribute"
	}
	for _, a := range in.LookupAttributes {
		if !attributeKeys[a.AttributeKey] {
			return "InvalidLookupAttributesException", "Invalid AttributeKey " + a.AttributeKey
		}
		if a.AttributeValue == "" || len(a.AttributeValue) > 2000 {
			return "InvalidLookupAttributesException", "AttributeValue must be 1-2000 characters"
		}
		if a.AttributeKey == "ReadOnly" && a.AttributeValue != "true" && a.AttributeValue != "false" {
			return "InvalidLookupAttributesException", "ReadOnly must be true or false"
		}
	}
	if in.MaxResults != nil && (*in.MaxResults < 1 || *in.MaxResults > MaxResults) {
		return "InvalidMaxResultsException", "MaxResults must be between 1 and 50"
	}
	if in.EventCategory != "" && in.EventCategory != "insight" {
		return "InvalidEventCategoryException", "EventCategory must be insight"
	}
	return "", ""
}

// offset reads NextToken: good only with the parameters it was given for.
func (s *Server) offset(in *lookupInput) (int, string, string) {
	if in.NextToken == "" {
		return 0, "", ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(in.NextToken)
	digest, n, ok := strings.Cut(string(raw), ":")
	off, perr := strconv.Atoi(n)
	if err != nil || !ok || perr != nil || off < 0 || digest != paramsDigest(in) {
		return 0, "InvalidNextTokenException", "Invalid NextToken, or NextToken used with different parameters"
	}
	return off, "", ""
}

func token(in *lookupInput, off int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(paramsDigest(in) + ":" + strconv.Itoa(off)))
}

func paramsDigest(in *lookupInput) string {
	c := *in
	c.NextToken = ""
	b, _ := json.Marshal(c)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func epoch(f float64) time.Time {
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC()
}

// matching are the region's events in [start, end] with the attribute,
// newest first.
func (s *Server) matching(in *lookupInput, region string, start, end time.Time) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Event
	for _, e := range s.events {
		if e.Region != region || e.EventTime.Before(start) || e.EventTime.After(end) {
			continue
		}
		if len(in.LookupAttributes) == 1 && !has(e, in.LookupAttributes[0].AttributeKey, in.LookupAttributes[0].AttributeValue) {
			continue
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].EventTime.Equal(out[j].EventTime) {
			return out[i].EventTime.After(out[j].EventTime)
		}
		return out[i].EventID > out[j].EventID
	})
	return out
}

func has(e Event, key, value string) bool {
	switch key {
	case "EventId":
		return e.EventID == value
	case "EventName":
		return e.EventName == value
	case "ReadOnly":
		return e.ReadOnly == value
	case "Username":
		return e.Username == value
	case "EventSource":
		return e.EventSource == value
	case "AccessKeyId":
		return e.AccessKeyID == value
	}
	for _, r := range e.Resources {
		if key == "ResourceType" && r.ResourceType == value || key == "ResourceName" && r.ResourceName == value {
			return true
		}
	}
	return false
}

func page(evs []Event, off, size int) []eventOut {
	out := []eventOut{}
	for i := off; i < len(evs) && i < off+size; i++ {
		e := evs[i]
		out = append(out, eventOut{EventID: e.EventID, EventName: e.EventName, EventSource: e.EventSource, ReadOnly: e.ReadOnly,
			EventTime: float64(e.EventTime.UnixMilli()) / 1000, Username: e.Username, AccessKeyID: e.AccessKeyID,
			Resources: e.Resources, CloudTrailEvent: record(e)})
	}
	return out
}

// record is the event's JSON record, as CloudTrailEvent carries it.
func record(e Event) string {
	type identity struct {
		Type     string `json:"type"`
		UserName string `json:"userName"`
	}
	b, _ := json.Marshal(struct {
		EventVersion      string            `json:"eventVersion"`
		EventID           string            `json:"eventID"`
		EventName         string            `json:"eventName"`
		EventSource       string            `json:"eventSource"`
		EventTime         string            `json:"eventTime"`
		AWSRegion         string            `json:"awsRegion"`
		ReadOnly          bool              `json:"readOnly"`
		UserIdentity      identity          `json:"userIdentity"`
		RequestParameters map[string]string `json:"requestParameters"`
		EventType         string            `json:"eventType"`
		ManagementEvent   bool              `json:"managementEvent"`
	}{"1.09", e.EventID, e.EventName, e.EventSource, e.EventTime.Format(time.RFC3339), e.Region, e.ReadOnly == "true",
		identity{"AssumedRole", e.Username}, e.RequestParameters, "AwsApiCall", true})
	return string(b)
}

func writeErr(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"__type": code, "message": msg})
}

// serveSeed is the test and demo API: POST /_standin/events (a JSON list
// of Event), POST /_standin/throttle ({"next": N}), GET /_standin/calls.
func (s *Server) serveSeed(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/_standin/events" && r.Method == http.MethodPost:
		var evs []Event
		if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&evs); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.Add(evs...)
		fmt.Fprintf(w, "{\"added\":%d}\n", len(evs))
	case r.URL.Path == "/_standin/throttle" && r.Method == http.MethodPost:
		var t struct{ Next int }
		if err := json.NewDecoder(r.Body).Decode(&t); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.ThrottleNext(t.Next)
	case r.URL.Path == "/_standin/calls":
		json.NewEncoder(w).Encode(s.Calls())
	default:
		http.NotFound(w, r)
	}
}
