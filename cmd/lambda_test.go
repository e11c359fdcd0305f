package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// runtimeStub is the Lambda Runtime API (2018-06-01) a function's
// bootstrap talks to: /invocation/next hands out the events in order
// (then holds the call, as Lambda does between invocations), /response and
// /error record each invocation's outcome.
type runtimeStub struct {
	events  [][]byte
	mu      sync.Mutex
	next    int
	results chan runtimeResult
	done    chan struct{}
}

type runtimeResult struct {
	id    string
	kind  string // response or error
	body  []byte
	ctype string
}

func (s *runtimeStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	const base = "/2018-06-01/runtime/invocation/"
	switch {
	case r.Method == http.MethodGet && r.URL.Path == base+"next":
		s.mu.Lock()
		i := s.next
		s.next++
		s.mu.Unlock()
		if i >= len(s.events) {
			<-s.done
			http.Error(w, "shutting down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Lambda-Runtime-Aws-Request-Id", fmt.Sprintf("req-%d", i))
		w.Header().Set("Lambda-Runtime-Deadline-Ms", fmt.Sprint(time.Now().Add(5*time.Minute).UnixMilli()))
		w.Header().Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:mfdlq-triage")
		w.Write(s.events[i])
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, base):
		rest := strings.TrimPrefix(r.URL.Path, base)
		id, kind, _ := strings.Cut(rest, "/")
		b, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
		s.results <- runtimeResult{id: id, kind: kind, body: b, ctype: r.Header.Get("Content-Type")}
	default:
		http.NotFound(w, r)
	}
}

// The binary under the Lambda runtime: a real alarm state change of a
// DLQ's alarm is answered with triage's verdict, the incident is in S3,
// the team is told once without a message body, the DLQ keeps every
// message; a bad event is an /error post of one line, and the function
// goes on to the next event.
func TestLambdaServesAlarmEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := localaws.Config(t)
	seed := localaws.NewSeeder(cfg)
	name := localaws.UniqueName("lam")
	_, dlqURL, err := seed.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	bodies := []string{`{"order_id":"o-1","version":2,"email":"ana@example.com"}`, `{"order_id":"o-2","version":2}`, `{"order_id":"o-3","version":2}`}
	if err := seed.Send(ctx, dlqURL, bodies, nil); err != nil {
		t.Fatal(err)
	}
	s3c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	bucket := strings.ToLower(name) + "-inc"
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	var told []string
	var toldMu sync.Mutex
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		toldMu.Lock()
		told = append(told, string(b))
		toldMu.Unlock()
	}))
	defer hook.Close()

	event, err := os.ReadFile("../alarmtriage/testdata/alarm-single.json")
	if err != nil {
		t.Fatal(err)
	}
	event = []byte(strings.ReplaceAll(string(event), `"QUEUE"`, `"`+name+`-dlq"`))
	missing := []byte(strings.ReplaceAll(strings.ReplaceAll(string(event), name+"-dlq", name+"-gone-dlq"), "orders-dlq-not-empty", "gone-dlq-not-empty"))
	stub := &runtimeStub{events: [][]byte{event, []byte(`{"source":"aws.ec2","detail-type":"EC2 Instance State-change Notification"}`), missing},
		results: make(chan runtimeResult, 4), done: make(chan struct{})}
	api := httptest.NewServer(stub)
	defer api.Close()
	defer close(stub.done)

	cmd := exec.Command(mfdlqBinary(t))
	cmd.Env = os.Environ()
	for k, v := range localaws.Env(localaws.Endpoint(t)) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "AWS_LAMBDA_RUNTIME_API="+strings.TrimPrefix(api.URL, "http://"),
		"MFDLQ_INCIDENT_S3=s3://"+bucket+"/incidents/", "MFDLQ_NOTIFY="+hook.URL+"/services/T000/B000/SECRET",
		"MFDLQ_TRIAGE_SAMPLE=1s", "MFDLQ_NOW=2026-12-07T03:00:06Z", "TMPDIR="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()

	wait := func() runtimeResult {
		t.Helper()
		select {
		case r := <-stub.results:
			return r
		case <-time.After(3 * time.Minute):
			t.Fatalf("no answer from the function; its stderr:\n%s", stderr.String())
		}
		return runtimeResult{}
	}
	first := wait()
	if first.id != "req-0" || first.kind != "response" {
		t.Fatalf("first invocation: %s %s %s\nstderr:\n%s", first.id, first.kind, first.body, stderr.String())
	}
	var resp struct {
		Outcome, Verdict, Alive, Incident string
		Messages                          int64
		Notified                          bool
	}
	if err := json.Unmarshal(first.body, &resp); err != nil {
		t.Fatalf("%s: %v", first.body, err)
	}
	wantIncident := "s3://" + bucket + "/incidents/" + name + "-dlq-20261207T0300Z"
	if resp.Outcome != "triaged" || resp.Verdict == "" || resp.Incident != wantIncident || resp.Messages != 3 || !resp.Notified {
		t.Fatalf("response %s, want triaged into %s with 3 messages, notified", first.body, wantIncident)
	}
	second := wait()
	if second.id != "req-1" || second.kind != "error" {
		t.Fatalf("second invocation: %s %s %s", second.id, second.kind, second.body)
	}
	var fnErr struct{ ErrorMessage string }
	if err := json.Unmarshal(second.body, &fnErr); err != nil || !strings.HasPrefix(fnErr.ErrorMessage, "mfdlq: bad event: source \"aws.ec2\"") || strings.Contains(fnErr.ErrorMessage, "\n") {
		t.Fatalf("the bad event's error: %s (%v)", second.body, err)
	}
	third := wait()
	if err := json.Unmarshal(third.body, &fnErr); err != nil || third.kind != "error" || !strings.HasPrefix(fnErr.ErrorMessage, "mfdlq: triage "+name+"-gone-dlq: ") ||
		!strings.Contains(fnErr.ErrorMessage, "not") || strings.Contains(fnErr.ErrorMessage, "\n") {
		t.Fatalf("a queue that does not exist: %s %s (%v)", third.kind, third.body, err)
	}
	t.Logf("a queue that does not exist: %s", fnErr.ErrorMessage)

	events := s3Text(t, s3c, bucket, "incidents/"+name+"-dlq-20261207T0300Z/events.jsonl")
	for _, step := range []string{`"step":"alarm"`, `"step":"contain"`, `"step":"classify"`, `"step":"triage"`, `"step":"notify"`} {
		if !strings.Contains(events, step) {
			t.Errorf("the incident's events lack %s:\n%s", step, events)
		}
	}
	s3Text(t, s3c, bucket, "incidents/"+name+"-dlq-20261207T0300Z/triage.json")
	toldMu.Lock()
	defer toldMu.Unlock()
	if len(told) != 1 {
		t.Fatalf("told the team %d times, want once: %q", len(told), told)
	}
	for _, b := range append(bodies, "order_id", "ana@example.com", "SECRET") {
		if strings.Contains(told[0], b) {
			t.Fatalf("the notification holds %q: %s", b, told[0])
		}
	}
	if !strings.Contains(told[0], wantIncident) || !strings.Contains(told[0], resp.Verdict) {
		t.Fatalf("the notification %s lacks the verdict or the incident", told[0])
	}
	// Nothing moved or deleted: the DLQ holds the three (the peek's may
	// still be hidden for its 5 s), the source none.
	visible, inFlight, err := seed.Depth(ctx, dlqURL)
	if err != nil || visible+inFlight != 3 {
		t.Fatalf("the DLQ holds %d visible, %d in flight (%v); want 3 in all", visible, inFlight, err)
	}
	srcURL := strings.TrimSuffix(dlqURL, "-dlq")
	if v, f, err := seed.Depth(ctx, srcURL); err != nil || v+f != 0 {
		t.Fatalf("the source holds %d, %d (%v); want none", v, f, err)
	}
}

func s3Text(t *testing.T, c *s3.Client, bucket, key string) string {
	t.Helper()
	out, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("s3://%s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	b, _ := io.ReadAll(out.Body)
	return string(b)
}

// A wrong setting fails each invocation with its fix, before any AWS
// call: the runtime itself starts (a failing init is retried by Lambda
// without end).
func TestLambdaSettings(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{env: map[string]string{"MFDLQ_INCIDENT_S3": ""}, want: "mfdlq: MFDLQ_INCIDENT_S3 is not set: give the function s3://bucket/prefix/"},
		{env: map[string]string{"MFDLQ_INCIDENT_S3": "s3://Bad_Bucket/x/"}, want: "mfdlq: MFDLQ_INCIDENT_S3: s3 incident \"Bad_Bucket\": not a bucket name"},
		{env: map[string]string{"MFDLQ_INCIDENT_S3": "s3://team-incidents/dlq/", "MFDLQ_NOTIFY": "http://example.com/hook"}, want: "mfdlq: MFDLQ_NOTIFY: --notify \"http://example.com/…\": a webhook must be https://"},
		{env: map[string]string{"MFDLQ_INCIDENT_S3": "s3://team-incidents/dlq/", "MFDLQ_TRIAGE_SAMPLE": "soon"}, want: "mfdlq: MFDLQ_TRIAGE_SAMPLE \"soon\": a duration such as 10s"},
	} {
		for _, k := range []string{"MFDLQ_INCIDENT_S3", "MFDLQ_NOTIFY", "MFDLQ_TRIAGE_SAMPLE", "MFDLQ_ALARM_TAG"} {
			t.Setenv(k, tc.env[k])
		}
		d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, nil)
		d.AWS = nil // any AWS use would panic: a wrong setting makes none
		_, err := newLambdaHandler(d).Invoke(context.Background(), []byte(`{}`))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q…", tc.env, err, tc.want)
		}
	}
}
