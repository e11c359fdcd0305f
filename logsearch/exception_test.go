package logsearch

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestException(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"python traceback ends with it", []string{
			"ERROR processing message 0b7e-41: bad payload",
			"Traceback (most recent call last):",
			`  File "/var/task/handler.py", line 12, in handle`,
			`    raise UnsupportedVersionError(f"version {v}")`,
			"UnsupportedVersionError: version 2",
		}, "UnsupportedVersionError: version 2"},
		{"lambda python one event", []string{
			"[ERROR]\t2024-03-10T22:04:00.123Z\treq-1\tKeyError: 'sku'\nTraceback (most recent call last):\n  File \"/var/task/app.py\", line 3, in handler\n    raise KeyError(\"sku\")",
		}, "KeyError: 'sku'"},
		{"java root cause", []string{
			"processing abc",
			"java.lang.IllegalStateException: order 42 closed",
			"\tat com.shop.ErrorHandler.handle(ErrorHandler.java:118)",
			"Caused by: java.io.IOException: disk full",
			"\t... 12 more",
		}, "java.io.IOException: disk full"},
		{"label before the error", []string{"Handler: KeyError: 'x'"}, "KeyError: 'x'"},
		{"go panic", []string{"msg 1", "panic: runtime error: index out of range [3] with length 2", "goroutine 1 [running]:"}, "panic: runtime error: index out of range [3] with length 2"},
		{"lambda error document", []string{`{"errorType":"PaymentGatewayTimeout","errorMessage":"no answer in 3000 ms","stackTrace":[]}`}, "PaymentGatewayTimeout: no answer in 3000 ms"},
		{"structured logger", []string{`{"level":"error","msg":"failed","error":"SkuNotFound: SKU-9123"}`}, "SkuNotFound: SKU-9123"},
		{"camel case when nothing else", []string{"SkuNotFound: SKU-9123"}, "SkuNotFound: SKU-9123"},
		{"node error", []string{"Error: connect ECONNREFUSED 10.0.0.1:5432", "    at TCPConnectWrap.afterConnect (node:net:1555:16)"}, "Error: connect ECONNREFUSED 10.0.0.1:5432"},
		{"ids are not errors", []string{"INFO MessageId: 3f2b8c1e-9d4a-4e8b-a1c2-0123456789ab", "RequestId: abc"}, ""},
		{"no exception", []string{"processing message 1", "done in 3 ms"}, ""},
		{"log levels are not types", []string{"ERROR: something odd"}, ""},
		{"strong beats a later weak", []string{"ValueError: bad", "OrderState: shipped"}, "ValueError: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Exception(trimStory(tt.lines, bounds{})); got != tt.want {
				t.Errorf("Exception() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTrimStoryStopsAtNextInvocation(t *testing.T) {
	events := []string{
		"2024-03-10T22:04:00.123Z\treq-1\tINFO\tmessage 41 failed",
		"Traceback (most recent call last):\n  File \"a.py\", line 1, in h\nValueError: first\n",
		"END RequestId: req-1",
		"START RequestId: req-2 Version: $LATEST",
		"KeyError: 'second'",
	}
	got := trimStory(events, bounds{})
	want := []string{events[0], "Traceback (most recent call last):", `  File "a.py", line 1, in h`, "ValueError: first"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("trimStory (-want +got):\n%s", diff)
	}
	if e := Exception(got); e != "ValueError: first" {
		t.Errorf("Exception = %q: the next invocation's error leaked in", e)
	}
	if strings.Contains(strings.Join(got, "\n"), "second") {
		t.Error("lines of the next invocation kept")
	}
}

func TestStoryEndsWhereAnotherMessageBegins(t *testing.T) {
	const (
		a   = "5e0c2a44-8d1b-4f0e-9c3a-1b2c3d4e5f60"
		b   = "6f1d3b55-9e2c-4a1f-8d4b-2c3d4e5f6071"
		c   = "7a2e4c66-af3d-4b2a-9e5c-3d4e5f607182" // not searched for
		req = "0f8e2b1a-6c3d-4e5f-8a9b-0c1d2e3f4a5b"
	)
	tests := []struct {
		name   string
		events []string
		want   string
	}{
		{"another searched message", []string{"processing " + a, "ValueError: a", "processing " + b, "KeyError: 'b'"}, "ValueError: a"},
		{"another message by the same label", []string{"processing " + a, "ValueError: a", "processing " + c, "KeyError: 'c'"}, "ValueError: a"},
		{"a JSON log's label", []string{`{"messageId":"` + a + `","level":"ERROR"}`, "ValueError: a", `{"messageId":"` + c + `","level":"ERROR"}`, "KeyError: 'c'"}, "ValueError: a"},
		{"another request", []string{"T\t" + req + "\tERROR\tprocessing " + a, "T\t1b2c3d4e-5f60-4a1b-8c2d-3e4f5a6b7c8d\tERROR\tboom", "KeyError: 'x'"}, ""},
		// Any other UUID-shaped token may be a MessageId not searched for:
		// the story ends before it, unless the line names this message too.
		{"another id after the first line ends the story", []string{"processing " + a, "NotFound: customer " + c}, ""},
		{"another id on a line naming the message", []string{"processing " + a, "NotFound: customer " + c + " in " + a}, "NotFound: customer " + c + " in " + a},
		{"another id on the first line", []string{"processing " + a + " for customer " + c, "NotFound: customer " + c}, "NotFound: customer " + c},
		{"a batch with no START lines, another label", []string{"processing " + a, "ValueError: a", `{"msg":"next","id":"` + c + `"}`, "KeyError: 'c'"}, "ValueError: a"},
		{"a silence longer than the gap", []string{"2024-03-10T22:04:00.010Z processing " + a, "2024-03-10T22:04:01.000Z ValueError: a", "2024-03-10T22:04:12.000Z KeyError: 'x'"}, "ValueError: a"},
		{"a silence with no time on the first line", []string{"processing " + a, "2024-03-10T22:04:01.000Z ValueError: a", "2024-03-10T22:05:12.000Z KeyError: 'x'"}, "ValueError: a"},
		{"a short pause goes on", []string{"2024-03-10T22:04:00.010Z processing " + a, "2024-03-10T22:04:09.000Z ValueError: a"}, "ValueError: a"},
		{"the same request after the timeout", []string{"2024-03-10T22:04:00.010Z	" + req + "	INFO	processing " + a, "2024-03-10T22:04:56.010Z " + req + " Task timed out after 56.00 seconds"}, "Task timed out after 56.00 seconds"},
		{"the same request goes on", []string{"T\t" + req + "\tERROR\tprocessing " + a, "T\t" + req + "\tERROR\tValueError: a"}, "ValueError: a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Exception(trimStory(tt.events, boundsOf(a, []string{a, b}, tt.events[0])))
			if got != tt.want {
				t.Errorf("Exception = %q, want %q", got, tt.want)
			}
		})
	}
}
