package alarmtriage

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func eventFile(t *testing.T, name, queue string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), `"QUEUE"`, `"`+queue+`"`))
}

func TestParseAlarm(t *testing.T) {
	single := string(eventFile(t, "alarm-single.json", "orders-dlq"))
	for _, tc := range []struct {
		name  string
		event string
		queue string // want, for a move into ALARM
		into  bool
		err   string
	}{
		{name: "single metric", event: single, queue: "orders-dlq", into: true},
		{name: "metric math", event: string(eventFile(t, "alarm-math.json", "")), queue: "orders-dlq", into: true},
		{name: "back to OK", event: strings.Replace(strings.Replace(single, `"value": "ALARM"`, `"value": "X"`, 1), `"value": "OK"`, `"value": "ALARM"`, 1), into: false},
		{name: "composite", event: string(eventFile(t, "alarm-composite.json", "")), err: "composite alarm, which names no queue"},
		{name: "another event", event: string(eventFile(t, "ec2-state.json", "")), err: `source "aws.ec2", detail-type "EC2 Instance State-change Notification"`},
		{name: "not JSON", event: "\x1b[31mhello", err: "not a JSON object"},
		{name: "not an SQS metric", event: strings.Replace(single, `"AWS/SQS"`, `"AWS/EC2"`, 1), err: "watches no AWS/SQS metric"},
		{name: "a hostile queue name", event: strings.Replace(single, `"orders-dlq"`, `"a\u001b[2Jb"`, 1), err: `names "a\\x1b[2Jb", not a queue name`},
		{name: "two queues", event: strings.Replace(string(eventFile(t, "alarm-math.json", "")), `{"QueueName": "orders-dlq"}, "name": "ApproximateNumberOfMessagesNotVisible"`, `{"QueueName": "payments-dlq"}, "name": "ApproximateNumberOfMessagesNotVisible"`, 1), err: "watches 2 queues (orders-dlq, payments-dlq)"},
		{name: "no timestamp", event: strings.Replace(single, `"timestamp": "2026-12-07T03:00:05.120+0000"`, `"timestamp": ""`, 1), err: "no timestamp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := ParseAlarm([]byte(tc.event))
			var bad *BadEventError
			switch {
			case tc.err != "":
				if !errors.As(err, &bad) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want a BadEventError with %q", err, tc.err)
				}
				if strings.ContainsAny(err.Error(), "\x1b\n") {
					t.Fatalf("the error holds a raw escape or a newline: %q", err)
				}
			case err != nil:
				t.Fatal(err)
			case a.Into() != tc.into || a.Queue != tc.queue:
				t.Fatalf("into %v queue %q, want %v %q", a.Into(), a.Queue, tc.into, tc.queue)
			}
		})
	}
}

// FuzzParseAlarm: whatever arrives, ParseAlarm returns an alarm or a
// *BadEventError of one line, and never panics.
func FuzzParseAlarm(f *testing.F) {
	for _, name := range []string{"alarm-single.json", "alarm-math.json", "alarm-composite.json", "ec2-state.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"source":"aws.cloudwatch","detail-type":"CloudWatch Alarm State Change","detail":null}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, err := ParseAlarm(raw)
		var bad *BadEventError
		switch {
		case err != nil && !errors.As(err, &bad):
			t.Fatalf("not a BadEventError: %v", err)
		case err != nil && strings.ContainsAny(err.Error(), "\n\r\x1b"):
			t.Fatalf("the error is not one clean line: %q", err)
		case err == nil && a.Into() && !queueRE.MatchString(a.Queue):
			t.Fatalf("a move into ALARM with queue %q", a.Queue)
		}
	})
}
