package cmd

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/check"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// deniedProxy forwards to the local server but answers AccessDenied, in
// each protocol's own shape, to every CloudWatch call (awsQuery: a form
// body) and every Lambda call (REST: /2015-03-31/...), as for a role that
// may read SQS and nothing else. SQS and CloudWatch Logs pass.
func deniedProxy(t *testing.T) (endpoint string, denied func() int) {
	t.Helper()
	target, err := url.Parse(localaws.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/2015-03-31/"):
			n++
			w.Header().Set("X-Amzn-ErrorType", "AccessDeniedException")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"Message":"User: arn:aws:sts::123456789012:assumed-role/oncall/x is not authorized to perform: lambda:ListEventSourceMappings"}`)
		case strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded"):
			n++
			w.Header().Set("Content-Type", "text/xml")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<ErrorResponse xmlns="http://monitoring.amazonaws.com/doc/2010-08-01/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User is not authorized to perform: cloudwatch:GetMetricData</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`)
		default:
			rp.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() int { return n }
}

// With CloudWatch and Lambda denied, the read-only steps still answer from
// what SQS tells them and say what they could not see; a change that
// needs Lambda fails with the permission exit code and changes nothing.
func TestStepsWithCloudWatchAndLambdaDenied(t *testing.T) {
	t.Parallel()
	s := localaws.NewSeeder(localaws.Config(t))
	ctx := context.Background()
	name := localaws.UniqueName("denied")
	_, dlq, err := s.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctx, dlq, []string{`{"a":1}`, `{"a":2}`}, nil); err != nil {
		t.Fatal(err)
	}
	endpoint, denied := deniedProxy(t)
	incident := t.TempDir()
	runStep := func(args ...string) (int, string, string) {
		var stdout, stderr strings.Builder
		d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
		code := run(ctx, d, append(args, "--endpoint-url", endpoint, "--incident", incident))
		t.Logf("%v: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
		return code, stdout.String(), stderr.String()
	}
	code, _, stderr := runStep("contain", "--queue", name+"-dlq", "--sample", "2s")
	if code != 0 && code != cmdutil.ExitCheckFailed {
		t.Errorf("contain: exit %d, want a verdict (0 or %d)", code, cmdutil.ExitCheckFailed)
	}
	for _, want := range []string{"CloudWatch unavailable", "Lambda mappings unknown"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("contain: stderr does not say %q", want)
		}
	}
	code, _, stderr = runStep("contain", "--queue", name+"-dlq", "--pause-mapping", "--yes")
	if code != cmdutil.ExitAuth || !strings.HasPrefix(stderr, "mfdlq: ") || !strings.Contains(stderr, "AccessDeniedException") || !strings.Contains(stderr, "docs/iam.md") {
		t.Errorf("contain --pause-mapping: exit %d, want %d naming the denied call and where the permissions are listed", code, cmdutil.ExitAuth)
	}
	// check: the alarm is not verified (a warning, not a failure), and the
	// findings SQS can answer are still judged.
	code, stdout, stderr := runStep("check", "--queue", name+"-dlq", "--output", "json")
	// (Exit 3 is the retention finding: both test queues keep 4 days.)
	if (code != 0 && code != cmdutil.ExitCheckFailed) || !strings.Contains(stderr, "CloudWatch alarms of "+name+"-dlq unknown") {
		t.Errorf("check: exit %d, want a verdict (0 or %d) and a warning about the alarms", code, cmdutil.ExitCheckFailed)
	}
	for _, want := range []string{"alarms unknown: AccessDenied", "Lambda event source mappings unknown", `"id": "` + check.IDDLQRetention} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check: output lacks %s", want)
		}
	}
	// verify after a redrive: the DLQ and the destination are read from
	// SQS; only the destination's NumberOfMessagesDeleted needs CloudWatch.
	if code, _, _ := runStep("redrive", "--queue", name+"-dlq", "--rate", "max", "--canary", "0", "--yes"); code != 0 {
		t.Fatalf("redrive: exit %d", code)
	}
	// Nothing consumes the destination here, so verify cannot prove it
	// yet (not proven, not failed: nothing came back), judged from SQS, and
	// says what it could not judge.
	code, _, stderr = runStep("verify", "--queue", name+"-dlq", "--wait", "0", "--settle", "0")
	if code != cmdutil.ExitNotProven || !strings.Contains(stderr, "NumberOfMessagesDeleted not judged") || !strings.Contains(stderr, "not drained yet") {
		t.Errorf("verify: exit %d, want %d from SQS's figures and a word on CloudWatch", code, cmdutil.ExitNotProven)
	}
	if denied() == 0 {
		t.Fatal("the proxy denied nothing: the test proved nothing")
	}
}
