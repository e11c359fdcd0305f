package verify

import (
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestJudgeTarget(t *testing.T) {
	end := t0.Add(time.Minute)
	lw := LambdaReturnWindow(end, 3*time.Second, 2, 6*time.Hour, "Lambda's default")
	lw.LogGroup = "/aws/lambda/orders"
	after := end.Add(time.Hour) // after the retries, before the maximum age
	fn := Redriven{Target: "lambda", DestQueue: "lambda:orders", Moved: 5, EndedAt: end, ReturnWindow: lw}
	sns := Redriven{Target: "sns", DestQueue: "sns:orders", EndedAt: end, ReturnWindow: SubscriberReturnWindow(end, nil, "", []string{"https subscriber x"})}
	ran := func(ran, unseen int, failed ...string) *EventsRun {
		return &EventsRun{Group: lw.LogGroup, Sought: ran + unseen + len(failed), Ran: ran, Unseen: unseen, Failed: failed, FailedLine: "[ERROR] RuntimeError: boom"}
	}
	for _, tc := range []struct {
		name     string
		o        Observation
		r        Redriven
		done     bool
		pass     bool
		contains string
	}{
		{"drained", Observation{At: after}, sns, true, true, "not checked: that https subscriber x handled the redriven messages: it is not a queue"},
		{"left", Observation{DLQVisible: 3, At: after}, Redriven{Target: "events", DestQueue: "events:b", ReturnWindow: sns.ReturnWindow}, false, false, "still holds 3"},
		{"no window", Observation{At: after}, Redriven{Target: "sns", DestQueue: "sns:orders"}, false, false, "not proven: sns:orders's return window could not be read"},
		{"a redriven event failed", Observation{At: end, Events: ran(4, 0, "r-5")}, fn, true, false,
			`1 redriven event of 5 failed in lambda:orders (request id r-5; its line in /aws/lambda/orders: "[ERROR] RuntimeError: boom")`},
		{"returned", Observation{Returned: []Returned{{}}}, fn, true, false, "came back"},
		// Every redriven event ran clean: nothing is left to fail back,
		// inside the retries or not.
		{"all ran", Observation{At: end.Add(time.Minute), Events: ran(5, 0)}, fn, true, true, "every redriven event ran: 5 of 5 request ids end with a REPORT line in /aws/lambda/orders, none with a failure"},
		// 03:01 + 3 attempts of 3s + 1m + 2m + 30s = 03:04:39: after 03:05.
		{"in the retries", Observation{At: end.Add(time.Minute), Events: ran(3, 2)}, fn, false, false,
			"not proven yet — look again after 03:05 UTC (2026-03-01): a redriven event failing at lambda:orders can still come back to the DLQ: Lambda retries a failed asynchronous event 2 times (timeout 3s each, waits of 1 and 2 minutes): a failing redriven event is back by 2026-03-01T03:04:39Z; 2 of 5 redriven events have no REPORT line in /aws/lambda/orders yet"},
		{"queued", Observation{At: after, Events: ran(3, 2)}, fn, false, false,
			"not proven yet — look again after 09:02 UTC (2026-03-01): 2 of 5 redriven events have no REPORT line in /aws/lambda/orders yet (found by their Invoke request ids): Lambda keeps a throttled or queued event for up to its maximum event age"},
		{"logs unreadable", Observation{At: after, Events: &EventsRun{Group: lw.LogGroup, Sought: 5, Err: "read log group /aws/lambda/orders: AccessDenied"}}, fn, false, false,
			"the redriven events cannot be found: read log group /aws/lambda/orders: AccessDenied (verify needs logs:FilterLogEvents on it)"},
		{"short journal", Observation{At: after, Events: ran(3, 0)}, fn, false, false, "the journal holds the Invoke request ids of 3 of the 5 moved"},
		// Past the maximum age, not every event seen: not proven, never a
		// pass on the absence of evidence.
		{"past the age", Observation{At: end.Add(7 * time.Hour), Events: ran(4, 1)}, fn, false, false,
			"not proven: 1 of 5 redriven events have no REPORT line in /aws/lambda/orders yet (found by their Invoke request ids), and their maximum event age has passed"},
		{"past the age, not read", Observation{At: end.Add(7 * time.Hour)}, fn, false, false, "not proven: the redriven events were not looked for in lambda:orders's logs"},
	} {
		j := Judge(tc.o, tc.r)
		if j.Done != tc.done || j.Pass != tc.pass || !strings.Contains(strings.Join(j.Reasons, "\n"), tc.contains) {
			t.Errorf("%s: %+v", tc.name, j)
		}
	}
}

func TestSubscriberReturnWindow(t *testing.T) {
	end := t0
	dlq := "arn:aws:sqs:us-east-1:1:orders-dlq"
	w := SubscriberReturnWindow(end, []Subscriber{
		{Queue: "fast", Visibility: 30 * time.Second, MaxReceiveCount: 3, DeadLetterARN: dlq},
		{Queue: "slow", Delay: 10 * time.Second, Visibility: 5 * time.Minute, MaxReceiveCount: 5, DeadLetterARN: dlq},
		{Queue: "other", Visibility: time.Hour, MaxReceiveCount: 9, DeadLetterARN: "arn:aws:sqs:us-east-1:1:x-dlq"},
		{Queue: "loose", Visibility: time.Hour},
	}, dlq, nil)
	// slow: 10s + 5m × 6 = 30m10s; other and loose do not come back here.
	if want := end.Add(30*time.Minute + 10*time.Second); !w.RetriesBy.Equal(want) || len(w.Parts) != 2 {
		t.Fatalf("return window: %v, want %v; %q", w.RetriesBy, want, w.Parts)
	}
	un := strings.Join(w.Unchecked, "\n")
	for _, want := range []string{"that other consumed the redriven messages: its failures go to arn:aws:sqs:us-east-1:1:x-dlq, not to this DLQ",
		"that loose consumed the redriven messages: it has no redrive policy"} {
		if !strings.Contains(un, want) {
			t.Errorf("unchecked %q, want %q", un, want)
		}
	}
	r := Redriven{Target: "sns", DestQueue: "sns:t", EndedAt: end, ReturnWindow: w}
	if j := Judge(Observation{At: end.Add(30 * time.Minute)}, r); j.Pass || !strings.Contains(j.Reasons[1], "not proven yet — look again after 03:31 UTC") {
		t.Errorf("inside the return window: %+v", j.Reasons)
	}
	if j := Judge(Observation{At: end.Add(31 * time.Minute)}, r); !j.Pass || len(j.Unchecked) != 2 {
		t.Errorf("after the return window: %+v", j)
	}
	// A subscriber still holding messages (its consumer started late) can
	// still fail them back: not proven until it drained and then its own
	// fail-back time (fast: 30s × 4 = 2 minutes after this look).
	late := Observation{At: end.Add(31 * time.Minute), Subscribers: []SubscriberDepth{{Queue: "fast", Depth: sqsapi.Depth{InFlight: 2}}, {Queue: "slow"}}}
	if j := Judge(late, r); j.Pass || !strings.Contains(j.Reasons[1], "not proven yet — look again after 03:33 UTC (2026-03-01): subscriber fast still holds 2 (0 visible, 2 in flight, 0 delayed)") {
		t.Errorf("a subscriber still holds messages: %+v", j.Reasons)
	}
	if w := SubscriberReturnWindow(end, nil, dlq, nil); len(w.Unchecked) != 1 || !strings.Contains(w.Unchecked[0], "no subscriber queue was found") {
		t.Errorf("no subscribers: %+v", w)
	}
}

func TestLookAgainRoundsUp(t *testing.T) {
	for at, want := range map[time.Time]string{
		t0:                     "03:00 UTC (2026-03-01)",
		t0.Add(time.Second):    "03:01 UTC (2026-03-01)",
		t0.Add(21 * time.Hour): "00:00 UTC (2026-03-02)",
	} {
		if got := lookAgain(at); got != want {
			t.Errorf("%v: %q, want %q", at, got, want)
		}
	}
}
