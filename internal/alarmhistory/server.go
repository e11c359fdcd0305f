// Package alarmhistory is a local stand-in for CloudWatch's
// DescribeAlarmHistory, which moto does not implement. It sits in front of
// moto: it answers DescribeAlarmHistory itself in the awsQuery protocol
// mfdlq speaks to CloudWatch (docs/aws-cloudwatch.md) and passes every
// other CloudWatch call through, as internal/movetasks does for SQS.
//
// What it keeps from the API reference: HistoryItemType ConfigurationUpdate,
// StateUpdate or Action; MaxRecords 1-100 (default 50); a NextToken good
// only with the same parameters; ScanBy TimestampDescending (the default)
// or TimestampAscending; StartDate/EndDate inclusive; only metric alarms
// unless AlarmTypes asks for composite ones; and the two weeks of history
// CloudWatch keeps — older items are gone.
//
// Tests and the demo seed it through Add or POST /_standin/alarm-history.
package alarmhistory

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/internal/standin"
)

// Retention is how long CloudWatch keeps an alarm's history.
const Retention = 14 * 24 * time.Hour

// Item is one seeded history item. For a StateUpdate, Old and New are the
// states (OK, ALARM, INSUFFICIENT_DATA) and HistoryData is built from them.
type Item struct {
	AlarmName string    `json:"AlarmName"`
	AlarmType string    `json:"AlarmType,omitempty"` // "" : MetricAlarm
	Timestamp time.Time `json:"Timestamp"`
	Type      string    `json:"HistoryItemType,omitempty"` // "" : StateUpdate
	Old       string    `json:"OldState,omitempty"`
	New       string    `json:"NewState,omitempty"`
	Reason    string    `json:"Reason,omitempty"`
	Summary   string    `json:"HistorySummary,omitempty"`
}

// Server is the stand-in; it is an http.Handler.
type Server struct {
	Now   func() time.Time
	proxy *httputil.ReverseProxy

	mu    sync.Mutex
	items []Item
	calls int
}

// New returns a stand-in in front of backend (moto's URL).
func New(backend string) (*Server, error) {
	proxy, err := standin.To(backend)
	if err != nil {
		return nil, err
	}
	return &Server{Now: time.Now, proxy: proxy}, nil
}

// Add seeds history items.
func (s *Server) Add(items ...Item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, it := range items {
		if it.AlarmType == "" {
			it.AlarmType = "MetricAlarm"
		}
		if it.Type == "" {
			it.Type = "StateUpdate"
		}
		if it.Summary == "" && it.Type == "StateUpdate" {
			it.Summary = fmt.Sprintf("Alarm updated from %s to %s", it.Old, it.New)
		}
		it.Timestamp = it.Timestamp.UTC()
		s.items = append(s.items, it)
	}
}

// Calls is how many DescribeAlarmHistory calls it answered.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// ServeHTTP answers DescribeAlarmHistory and passes the rest to moto.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/_standin/alarm-history" && r.Method == http.MethodPost {
		var items []Item
		if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&items); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.Add(items...)
		return
	}
	body, err := standin.Body(r, 8<<20)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	form, _ := url.ParseQuery(string(body))
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") || form.Get("Action") != "DescribeAlarmHistory" {
		s.proxy.ServeHTTP(w, r)
		return
	}
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	out, code, msg := s.describe(form)
	if code != "" {
		writeErr(w, code, msg)
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	io.WriteString(w, xml.Header)
	xml.NewEncoder(w).Encode(out)
}

type member struct {
	AlarmName       string `xml:"AlarmName"`
	AlarmType       string `xml:"AlarmType"`
	Timestamp       string `xml:"Timestamp"`
	HistoryItemType string `xml:"HistoryItemType"`
	HistorySummary  string `xml:"HistorySummary"`
	HistoryData     string `xml:"HistoryData"`
}

type response struct {
	XMLName xml.Name `xml:"DescribeAlarmHistoryResponse"`
	NS      string   `xml:"xmlns,attr"`
	Result  struct {
		Items     []member `xml:"AlarmHistoryItems>member"`
		NextToken string   `xml:"NextToken,omitempty"`
	} `xml:"DescribeAlarmHistoryResult"`
	RequestID string `xml:"ResponseMetadata>RequestId"`
}

func (s *Server) describe(form url.Values) (*response, string, string) {
	size := 50
	if v := form.Get("MaxRecords"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return nil, "InvalidParameterValue", "MaxRecords must be between 1 and 100"
		}
		size = n
	}
	typ := form.Get("HistoryItemType")
	switch typ {
	case "", "ConfigurationUpdate", "StateUpdate", "Action", "AlarmContributorStateUpdate", "AlarmContributorAction":
	default:
		return nil, "InvalidParameterValue", "HistoryItemType must be ConfigurationUpdate, StateUpdate or Action"
	}
	scan := form.Get("ScanBy")
	if scan != "" && scan != "TimestampDescending" && scan != "TimestampAscending" {
		return nil, "InvalidParameterValue", "ScanBy must be TimestampDescending or TimestampAscending"
	}
	start, end, err := dates(form)
	if err != nil {
		return nil, "InvalidParameterValue", err.Error()
	}
	off := 0
	if tok := form.Get("NextToken"); tok != "" {
		if off, err = PageOffset(tok, form); err != nil {
			return nil, "InvalidNextToken", "The service couldn't process your request because the NextToken is not valid"
		}
	}
	items := s.matching(form, typ, start, end, scan == "TimestampAscending")
	out := &response{NS: "http://monitoring.amazonaws.com/doc/2010-08-01/", RequestID: "00000000-0000-4000-8000-000000000000"}
	for i := off; i < len(items) && i < off+size; i++ {
		out.Result.Items = append(out.Result.Items, toMember(items[i]))
	}
	if off+size < len(items) {
		out.Result.NextToken = PageToken(off+size, form)
	}
	return out, "", ""
}

func dates(form url.Values) (start, end time.Time, err error) {
	end = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	if v := form.Get("StartDate"); v != "" {
		if start, err = time.Parse(time.RFC3339, v); err != nil {
			return start, end, fmt.Errorf("StartDate %q is not a timestamp", v)
		}
	}
	if v := form.Get("EndDate"); v != "" {
		if end, err = time.Parse(time.RFC3339, v); err != nil {
			return start, end, fmt.Errorf("EndDate %q is not a timestamp", v)
		}
	}
	return start, end, nil
}

func (s *Server) matching(form url.Values, typ string, start, end time.Time, ascending bool) []Item {
	types := map[string]bool{}
	for k, v := range form {
		if strings.HasPrefix(k, "AlarmTypes.member.") && len(v) > 0 {
			types[v[0]] = true
		}
	}
	if len(types) == 0 {
		types["MetricAlarm"] = true
	}
	oldest := s.Now().UTC().Add(-Retention)
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Item
	for _, it := range s.items {
		switch {
		case it.Timestamp.Before(oldest), it.Timestamp.Before(start), it.Timestamp.After(end):
		case typ != "" && it.Type != typ:
		case form.Get("AlarmName") != "" && it.AlarmName != form.Get("AlarmName"):
		case !types[it.AlarmType]:
		default:
			out = append(out, it)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ascending {
			return out[i].Timestamp.Before(out[j].Timestamp)
		}
		return out[i].Timestamp.After(out[j].Timestamp)
	})
	return out
}

func toMember(it Item) member {
	data := ""
	if it.Type == "StateUpdate" {
		type state struct {
			Value  string `json:"stateValue"`
			Reason string `json:"stateReason"`
		}
		b, _ := json.Marshal(struct {
			Version string `json:"version"`
			Old     state  `json:"oldState"`
			New     state  `json:"newState"`
		}{"1.0", state{it.Old, "previous state"}, state{it.New, it.Reason}})
		data = string(b)
	}
	return member{AlarmName: it.AlarmName, AlarmType: it.AlarmType, Timestamp: it.Timestamp.Format("2006-01-02T15:04:05.000Z"),
		HistoryItemType: it.Type, HistorySummary: it.Summary, HistoryData: data}
}

func digest(form url.Values) string {
	c := url.Values{}
	for k, v := range form {
		if k != "NextToken" {
			c[k] = v
		}
	}
	sum := sha256.Sum256([]byte(c.Encode()))
	return hex.EncodeToString(sum[:8])
}

// PageToken is the NextToken of the page that starts at off, tied to the
// query it pages (form without NextToken): a token of another query is
// refused, as CloudWatch does. The composite-alarm stand-in pages with it too.
func PageToken(off int, form url.Values) string {
	return base64.RawURLEncoding.EncodeToString([]byte(digest(form) + ":" + strconv.Itoa(off)))
}

// PageOffset reads a PageToken back for the same query; an error for a
// token that is not one, or belongs to another query.
func PageOffset(tok string, form url.Values) (int, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return 0, err
	}
	d, n, ok := strings.Cut(string(raw), ":")
	off, err := strconv.Atoi(n)
	if !ok || err != nil || d != digest(form) || off < 0 {
		return 0, fmt.Errorf("bad token")
	}
	return off, nil
}

// writeErr writes an awsQuery error.
func writeErr(w http.ResponseWriter, code, msg string) {
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(http.StatusBadRequest)
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(msg))
	fmt.Fprintf(w, `<ErrorResponse xmlns="http://monitoring.amazonaws.com/doc/2010-08-01/"><Error><Type>Sender</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>00000000-0000-4000-8000-000000000000</RequestId></ErrorResponse>`, code, b.String())
}
