package logsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/smithy-go/middleware"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// insightsServer implements StartQuery, GetQueryResults, StopQuery and
// GetLogEvents of CloudWatch Logs' JSON 1.1 protocol the way AWS answers
// them, where moto does not: a query is Scheduled, then Running for a few
// polls before Complete; its "filter @message like /re/" is applied;
// @timestamp is "2006-01-02 15:04:05.000" UTC and @log is
// "account-id:group". moto completes every query at once and ignores filter.
type insightsServer struct {
	mu      sync.Mutex
	events  []fakeEvent
	running int    // polls answered Running before Complete
	final   string // status after the Running polls
	polls   int
	stopped []string
	query   map[string]any
	queries int // StartQuery calls
}

type fakeEvent struct {
	group, stream string
	ms            int64
	message       string
}

func (s *insightsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in map[string]any
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	switch op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "Logs_20140328."); op {
	case "StartQuery":
		if groups, _ := in["logGroupNames"].([]any); len(groups) == 0 || len(groups) > 50 {
			w.WriteHeader(400)
			json.NewEncoder(w).Encode(map[string]string{"__type": "InvalidParameterException", "message": "logGroupNames: 1 to 50"})
			return
		}
		if q, _ := in["queryString"].(string); len(q) > 10000 {
			w.WriteHeader(400)
			json.NewEncoder(w).Encode(map[string]string{"__type": "InvalidParameterException", "message": "queryString: at most 10000 characters"})
			return
		}
		s.query, s.polls = in, 0
		s.queries++
		json.NewEncoder(w).Encode(map[string]string{"queryId": fmt.Sprintf("q-%d", s.queries)})
	case "GetQueryResults":
		s.polls++
		status := "Scheduled"
		switch {
		case s.polls > 1 && s.polls <= s.running+1:
			status = "Running"
		case s.polls > s.running+1:
			status = s.final
		}
		out := map[string]any{"status": status, "results": [][]map[string]string{}}
		if status == "Complete" {
			out["results"] = s.results()
		}
		json.NewEncoder(w).Encode(out)
	case "StopQuery":
		s.stopped = append(s.stopped, in["queryId"].(string))
		json.NewEncoder(w).Encode(map[string]bool{"success": true})
	case "GetLogEvents":
		var out []map[string]any
		for _, e := range s.events {
			if e.group == in["logGroupName"] && e.stream == in["logStreamName"] && e.ms >= int64(in["startTime"].(float64)) {
				out = append(out, map[string]any{"timestamp": e.ms, "message": e.message, "ingestionTime": e.ms})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"events": out})
	default:
		http.Error(w, "unexpected "+op, 400)
	}
}

var likeRE = regexp.MustCompile(`filter @message like /([^/]*)/`)

func (s *insightsServer) results() [][]map[string]string {
	m := likeRE.FindStringSubmatch(s.query["queryString"].(string))
	if m == nil {
		return nil
	}
	re := regexp.MustCompile(m[1])
	from, to := int64(s.query["startTime"].(float64))*1000, int64(s.query["endTime"].(float64))*1000+999
	var rows [][]map[string]string
	for _, e := range s.events {
		if e.ms < from || e.ms > to || !re.MatchString(e.message) {
			continue
		}
		if len(rows) == insightsLimit { // "| limit 10000", Insights' maximum
			break
		}
		rows = append(rows, []map[string]string{
			{"field": "@timestamp", "value": time.UnixMilli(e.ms).UTC().Format("2006-01-02 15:04:05.000")},
			{"field": "@message", "value": e.message},
			{"field": "@logStream", "value": e.stream},
			{"field": "@log", "value": "123456789012:" + e.group},
			{"field": "@ptr", "value": "ptr"},
		})
	}
	return rows
}

func fakeClient(t *testing.T, s *insightsServer) *cloudwatchlogs.Client {
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return cloudwatchlogs.New(cloudwatchlogs.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: aws.AnonymousCredentials{},
		// Only a 200 whose body read met the SDK's closed-connection bug is
		// tried again (read whole first, as mfdlq's own clients do).
		Retryer:    retry.NewStandard(func(o *retry.StandardOptions) { o.Retryables = []retry.IsErrorRetryable{retry.RetryableError{}} }),
		APIOptions: []func(*middleware.Stack) error{sqsapi.AddReadWholeBody},
	})
}

// recordSleeps is a Poll.Sleep that records the waits instead of waiting.
func recordSleeps(waits *[]time.Duration) func(context.Context, time.Duration) error {
	return func(_ context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return nil
	}
}

func TestInsightsPollsUntilComplete(t *testing.T) {
	base := time.Date(2024, 3, 10, 22, 4, 0, 0, time.UTC).UnixMilli()
	s := &insightsServer{running: 4, final: "Complete", events: []fakeEvent{
		{"/aws/lambda/orders", "s1", base, "processing " + idA},
		{"/aws/lambda/orders", "s1", base + 1, "UnsupportedVersionError: version 2"},
		{"/aws/lambda/orders", "s9", base + 2, "unrelated line"},
		{"/aws/lambda/billing", "s2", base + 3, "charging " + idB},
		{"/aws/lambda/billing", "s2", base + 4, "SkuNotFound: SKU-9123"},
	}}
	var waits []time.Duration
	ts := targets(idA, idB, idC)
	rep, err := Search(context.Background(), fakeClient(t, s), ts, Options{
		Groups: []string{"/aws/lambda/orders", "/aws/lambda/billing"}, Context: 5, Method: MethodInsights,
		Poll: Poll{Initial: 100 * time.Millisecond, Max: 400 * time.Millisecond, Sleep: recordSleeps(&waits)},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{100, 200, 400, 400, 400}
	for i := range want {
		want[i] *= time.Millisecond
	}
	if len(waits) != len(want) || waits[0] != want[0] || waits[2] != want[2] || waits[4] != want[4] {
		t.Errorf("waits %v, want %v (doubling, capped)", waits, want)
	}
	if s.polls != 6 {
		t.Errorf("%d polls, want 6 (Scheduled, 4×Running, Complete)", s.polls)
	}
	q := s.query["queryString"].(string)
	if !strings.Contains(q, idA+"|"+idB+"|"+idC) || !strings.Contains(q, "sort @timestamp asc") {
		t.Errorf("query %q does not filter on the three ids", q)
	}
	if got := s.query["startTime"].(float64); int64(got) != ts[0].Range.From.Unix() {
		t.Errorf("startTime %v, want the range's start in seconds", got)
	}
	a, b := rep.Messages[0], rep.Messages[1]
	if a.LogGroup != "/aws/lambda/orders" || a.LogStream != "s1" || a.Timestamp != "2024-03-10T22:04:00.000Z" || a.Signature != "UnsupportedVersionError: version <n>" {
		t.Errorf("A: %+v", a)
	}
	if b.LogGroup != "/aws/lambda/billing" || b.Exception != "SkuNotFound: SKU-9123" {
		t.Errorf("B: %+v", b)
	}
	if rep.Found != 2 || rep.Messages[2].Found {
		t.Errorf("found %d, C found %v; want 2, false", rep.Found, rep.Messages[2].Found)
	}
}

func TestInsightsFailedQuery(t *testing.T) {
	s := &insightsServer{running: 1, final: "Failed"}
	var waits []time.Duration
	_, err := Search(context.Background(), fakeClient(t, s), targets(idA), Options{
		Groups: []string{"g"}, Method: MethodInsights, Poll: Poll{Sleep: recordSleeps(&waits)},
	})
	if err == nil || !strings.Contains(err.Error(), "ended Failed") {
		t.Errorf("err = %v, want the query's Failed status", err)
	}
}

func TestInsightsTimeoutStopsQuery(t *testing.T) {
	s := &insightsServer{running: 1000, final: "Complete"}
	_, err := Search(context.Background(), fakeClient(t, s), targets(idA), Options{
		Groups: []string{"g"}, Method: MethodInsights,
		Poll: Poll{Initial: time.Millisecond, Max: time.Millisecond, Timeout: 20 * time.Millisecond},
	})
	if err == nil || !strings.Contains(err.Error(), "still Running") {
		t.Fatalf("err = %v, want still Running", err)
	}
	if len(s.stopped) != 1 || s.stopped[0] != "q-1" {
		t.Errorf("stopped %v, want the query stopped", s.stopped)
	}
}

func TestInsightsInterruptStopsQuery(t *testing.T) {
	s := &insightsServer{running: 1000, final: "Complete"}
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Search(ctx, fakeClient(t, s), targets(idA), Options{
		Groups: []string{"g"}, Method: MethodInsights,
		Poll: Poll{Sleep: func(context.Context, time.Duration) error { cancel(); return context.Canceled }},
	})
	if !errors.Is(err, context.Canceled) || len(s.stopped) != 1 {
		t.Errorf("err %v stopped %v, want canceled and the query stopped", err, s.stopped)
	}
}

func TestInsightsTooManyGroups(t *testing.T) {
	groups := make([]string, 51)
	for i := range groups {
		groups[i] = "g"
	}
	_, err := Search(context.Background(), nil, targets(idA), Options{Groups: groups, Method: MethodInsights})
	if !errors.Is(err, ErrTooManyGroups) {
		t.Errorf("err = %v, want ErrTooManyGroups", err)
	}
}

func TestAutoMethod(t *testing.T) {
	s := &insightsServer{final: "Complete"}
	ids := []string{idA, idB, idC, "a-1", "a-2", "a-3"}
	rep, err := Search(context.Background(), fakeClient(t, s), targets(ids...), Options{Groups: []string{"g"}, Poll: Poll{Initial: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != MethodInsights || s.query == nil {
		t.Errorf("method %s for %d ids, want one Insights query", rep.Method, len(ids))
	}
}

// TestInsightsSplitsLongQueries: 400 messages with request ids do not fit
// in one 10,000-character query; the search splits them, never sends a
// longer one (the fake refuses it as AWS does) and finds every message.
func TestInsightsSplitsLongQueries(t *testing.T) {
	base := time.Date(2024, 3, 10, 22, 4, 0, 0, time.UTC).UnixMilli()
	s := &insightsServer{final: "Complete"}
	var ts []Wanted
	for i := range 400 {
		id := fmt.Sprintf("%08d-aaaa-bbbb-cccc-%012d", i, i)
		req := fmt.Sprintf("%08d-dddd-eeee-ffff-%012d", i, i)
		s.events = append(s.events, fakeEvent{"g", "s", base + int64(i), "processing " + id})
		tg := targets(id)[0]
		tg.RequestID = req
		ts = append(ts, tg)
	}
	qs := Queries(func() []string {
		var ids []string
		for _, t := range ts {
			ids = append(ids, t.MessageID, t.RequestID)
		}
		return ids
	}())
	if len(qs) < 3 {
		t.Fatalf("%d queries for 800 ids, want them split", len(qs))
	}
	for _, q := range qs {
		if len(q) > maxQueryLen {
			t.Fatalf("a query of %d characters", len(q))
		}
	}
	rep, err := Search(context.Background(), fakeClient(t, s), ts, Options{Groups: []string{"g"}, Method: MethodInsights, Poll: Poll{Initial: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if s.queries != len(qs) || rep.Found != 400 || rep.Truncated {
		t.Fatalf("%d queries, found %d of 400, truncated %v", s.queries, rep.Found, rep.Truncated)
	}
}

// TestInsightsTruncationIsReported: a query that returns Insights' 10,000
// rows may have left lines unread; the report says so.
func TestInsightsTruncationIsReported(t *testing.T) {
	base := time.Date(2024, 3, 10, 22, 4, 0, 0, time.UTC).UnixMilli()
	s := &insightsServer{final: "Complete"}
	for i := range insightsLimit + 5 {
		s.events = append(s.events, fakeEvent{"g", "s", base + int64(i), "retrying " + idA})
	}
	s.events = append(s.events, fakeEvent{"g", "s", base + insightsLimit + 10, "processing " + idB})
	rep, err := Search(context.Background(), fakeClient(t, s), targets(idA, idB), Options{Groups: []string{"g"}, Method: MethodInsights, Poll: Poll{Initial: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Truncated {
		t.Fatal("10,005 matching lines and the report does not say it was truncated")
	}
}
