package logsearch

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// A Lambda asynchronous invocation's DLQ message: the function's log lines
// name the RequestID attribute, never the SQS MessageId.
const (
	reqMsgID = "3c4d5e6f-0000-4000-8000-00000000aaaa"
	reqID    = "7ae1b6d2-4d0f-4c1b-9f55-6b1d1b0c2a11"
)

func lambdaDLQMessage(sent time.Time) sqsjson.Message {
	s := func(v string) *string { return &v }
	m := msg(reqMsgID, sent.UnixMilli(), 0)
	m.Body = `{"order_id":"o-1","version":1}`
	m.MessageAttributes = map[string]sqsjson.MessageAttributeValue{
		"RequestID":    {DataType: "String", StringValue: s(reqID)},
		"ErrorCode":    {DataType: "Number", StringValue: s("200")},
		"ErrorMessage": {DataType: "String", StringValue: s("Task timed out after 6.01 seconds")},
	}
	return m
}

func TestTargetsCarryTheRequestID(t *testing.T) {
	now := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	plain := msg("b", now.UnixMilli(), 0)
	plain.Body = `{"order_id":"o-2"}`
	ts, _ := Targets([]sqsjson.Message{lambdaDLQMessage(now), plain}, nil, nil, 2, time.Minute, time.Hour, now)
	if len(ts) != 2 || ts[0].RequestID != reqID || ts[1].RequestID != "" {
		t.Errorf("targets %+v: want the Lambda DLQ message's RequestID, none for the bare one", ts)
	}
}

// TestSearchByRequestIDMoto: the MessageId is in no log line; the request id
// finds the function's lines, by FilterLogEvents and by Insights. A message
// whose MessageId is logged is found by it, not by its request id.
func TestSearchByRequestIDMoto(t *testing.T) {
	c := cloudwatchlogs.NewFromConfig(localaws.Config(t))
	now := time.Now().UTC()
	g := "/aws/lambda/" + localaws.UniqueName("orders-async")
	seedStream(t, c, g, "2024/03/10/[$LATEST]a1", now.Add(-2*time.Minute), []string{
		"START RequestId: " + reqID + " Version: $LATEST",
		"2024-03-10T22:04:00.010Z\t" + reqID + "\tINFO\tcharging order o-1",
		"2024-03-10T22:04:06.010Z " + reqID + " Task timed out after 6.01 seconds",
		"END RequestId: " + reqID,
	})
	w := timeRange(now)
	for _, m := range []Method{MethodFilter, MethodInsights} {
		t.Run(string(m), func(t *testing.T) {
			ts := []Wanted{{MessageID: reqMsgID, RequestID: reqID, Range: w}, {MessageID: motoC, Range: w}}
			rep, err := Search(context.Background(), c, ts, Options{Groups: []string{g}, Context: 10, Method: m, Poll: Poll{Initial: time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Messages[0]
			if !r.Found || r.MatchedBy != "request_id" || r.RequestID != reqID || r.MessageID != reqMsgID ||
				!strings.Contains(r.Exception, "Task timed out after 6.01 seconds") {
				t.Errorf("record %+v", r)
			}
			if rep.Messages[1].Found {
				t.Errorf("motoC found: %+v", rep.Messages[1])
			}
		})
	}
}

func TestSearchFileByRequestID(t *testing.T) {
	logs := strings.Join([]string{
		`{"timestamp":1710108240000,"message":"START RequestId: ` + reqID + ` Version: $LATEST","logStreamName":"s1"}`,
		`{"timestamp":1710108246010,"message":"2024-03-10T22:04:06.010Z ` + reqID + ` Task timed out after 6.01 seconds","logStreamName":"s1"}`,
		`{"timestamp":1710108250000,"message":"ERROR message ` + idA + ` failed: CustomerNotFound: C-1","logStreamName":"s2"}`,
		`{"timestamp":1710108250001,"message":"RequestId 0f0f0f0f-0000-4000-8000-000000000001 also mentioned","logStreamName":"s2"}`,
	}, "\n")
	ts := targets(reqMsgID, idA)
	ts[0].RequestID = reqID
	// idA is logged by its MessageId: its request id is never used.
	ts[1].RequestID = "0f0f0f0f-0000-4000-8000-000000000001"
	rep, err := SearchFile(strings.NewReader(logs), "export.jsonl", ts, 5)
	if err != nil {
		t.Fatal(err)
	}
	a, b := rep.Messages[0], rep.Messages[1]
	if !a.Found || a.MatchedBy != "request_id" || !strings.Contains(a.Exception, "Task timed out") {
		t.Errorf("by request id: %+v", a)
	}
	if !b.Found || b.MatchedBy != "" || b.Matches != 1 {
		t.Errorf("by message id: %+v", b)
	}
}

// TestRequestIDShape: a request id is trusted only with its source's
// shape — a UUID from a Lambda envelope; "e", "0", a long token or a
// request id of an envelope that carries none are never searched for.
func TestRequestIDShape(t *testing.T) {
	now := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	for id, want := range map[string]string{
		reqID: reqID, "e": "", "0": "", "7ae1b6d2": "", "7ae1b6d24d0f4c1b9f556b1d1b0c2a11": "",
		"7ae1b6d2-4d0f-4c1b-9f55-6b1d1b0c2a1x": "", strings.Repeat("a", 128): "",
	} {
		m := lambdaDLQMessage(now)
		m.MessageAttributes["RequestID"] = sqsjson.MessageAttributeValue{DataType: "String", StringValue: &id}
		ts, _ := Targets([]sqsjson.Message{m}, nil, nil, 1, time.Minute, time.Hour, now)
		if len(ts) != 1 || ts[0].RequestID != want {
			t.Errorf("RequestID attribute %q: target %+v, want request id %q", id, ts, want)
		}
	}
}

func TestNamesRequestWholeToken(t *testing.T) {
	for _, tc := range []struct {
		line, id string
		want     bool
	}{
		{"2024-03-10T22:04:00.010Z\t" + reqID + "\tERROR\tboom", reqID, true},
		{"END RequestId: " + reqID, reqID, true},
		{`{"requestId":"` + reqID + `"}`, reqID, true},
		{"x" + reqID, reqID, false},
		{reqID + "-2", reqID, false},
		{"order e failed", "e", true},
		{"the exception was raised", "e", false},
		{"id 10 of 100", "0", false},
		{"", reqID, false},
		{"anything", "", false},
	} {
		if got := namesRequest(tc.line, tc.id); got != tc.want {
			t.Errorf("namesRequest(%q, %q) = %v, want %v", tc.line, tc.id, got, tc.want)
		}
	}
}

// TestSearchFileRequestIDWholeToken: a log file whose lines hold the
// request id only inside longer tokens gives the message no story.
func TestSearchFileRequestIDWholeToken(t *testing.T) {
	log := "2024-03-10T22:04:00.010Z\tx" + reqID + "\tERROR\tSomeoneElsesError: not yours\n"
	rep, err := SearchFile(strings.NewReader(log), "f.log", []Wanted{{MessageID: reqMsgID, RequestID: reqID}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Messages) != 1 || rep.Messages[0].Found {
		t.Fatalf("found a story through a request id inside a longer token: %+v", rep.Messages)
	}
}

// TestSearchRequestIDWholeTokenMoto: lines holding the request id only
// inside a longer token are not the message's story, by FilterLogEvents
// (whose quoted pattern matches inside tokens) and by Insights.
func TestSearchRequestIDWholeTokenMoto(t *testing.T) {
	c := cloudwatchlogs.NewFromConfig(localaws.Config(t))
	now := time.Now().UTC()
	g := "/aws/lambda/" + localaws.UniqueName("orders-token")
	seedStream(t, c, g, "2024/03/10/[$LATEST]b2", now.Add(-2*time.Minute), []string{
		"2024-03-10T22:04:00.010Z\tx" + reqID + "\tERROR\tSomeoneElsesError: not this message",
		"job " + reqID + "-retry failed: OtherError: nor this",
	})
	w := timeRange(now)
	for _, m := range []Method{MethodFilter, MethodInsights} {
		t.Run(string(m), func(t *testing.T) {
			rep, err := Search(context.Background(), c, []Wanted{{MessageID: reqMsgID, RequestID: reqID, Range: w}}, Options{Groups: []string{g}, Method: m, Context: 5, Poll: Poll{Initial: time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Messages) != 1 || rep.Messages[0].Found {
				t.Fatalf("found through a request id inside a longer token: %+v", rep.Messages)
			}
		})
	}
}

// TestSearchFileLineTooLong: a file with a line over the bound (a binary
// file, a dump without newlines) is told as such, with its line number,
// as a typed error cmd turns into exit 2 — not a scanner's "token too
// long" at exit 1.
func TestSearchFileLineTooLong(t *testing.T) {
	in := "first line\n" + strings.Repeat("A", maxFileLine+1) + "\n"
	_, err := SearchFile(strings.NewReader(in), "dump.bin", []Wanted{{MessageID: "m-1"}}, 0)
	var long *LineTooLongError
	if !errors.As(err, &long) || long.Line != 2 || long.Name != "dump.bin" {
		t.Fatalf("err = %v, want a LineTooLongError for line 2 of dump.bin", err)
	}
}
