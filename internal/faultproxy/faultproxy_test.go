package faultproxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// backend answers every call with its body echoed and counts what reached it.
func backend(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Backend", "yes")
		w.Write(append([]byte("echo:"), b...))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func call(t *testing.T, url, body string) (status int, got string, err error) {
	t.Helper()
	// A fresh connection per call: a dropped one must not poison the next.
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Post(url, "application/x-amz-json-1.0", strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

func TestNoFaultsPassesThrough(t *testing.T) {
	be, hits := backend(t)
	p := New(be.URL, 0, 1)
	srv := httptest.NewServer(p)
	defer srv.Close()
	status, body, err := call(t, srv.URL+"/q", `{"QueueUrl":"x"}`)
	if err != nil || status != 200 || body != `echo:{"QueueUrl":"x"}` {
		t.Fatalf("got %d %q %v", status, body, err)
	}
	if calls, faults := p.Counts(); calls != 1 || len(faults) != 0 || hits.Load() != 1 {
		t.Fatalf("calls %d faults %v hits %d", calls, faults, hits.Load())
	}
}

// Every kind shows up, and each does what its name says: the "after" kinds
// reach the server, the others do not; the client sees the matching
// status or a broken connection.
func TestEachFaultKind(t *testing.T) {
	be, hits := backend(t)
	p := New(be.URL, 1, 42)
	srv := httptest.NewServer(p)
	defer srv.Close()
	const n = 200
	seen := map[string]int64{}
	for range n {
		status, body, err := call(t, srv.URL, "{}")
		switch {
		case err != nil:
			seen["dropped"]++
		case status == 500 && strings.Contains(body, "InternalError"):
			seen[ServerError]++
		case status == 400 && strings.Contains(body, "ThrottlingException"):
			seen[Throttle]++
		case status == 503 && strings.Contains(body, "ServiceUnavailable"):
			seen[ServerErrAfter]++
		default:
			t.Fatalf("unexpected answer %d %q", status, body)
		}
	}
	calls, faults := p.Counts()
	if calls != n {
		t.Fatalf("counted %d calls, made %d", calls, n)
	}
	for _, k := range kinds {
		if faults[k] == 0 {
			t.Errorf("kind %s never injected in %d calls at rate 1", k, n)
		}
	}
	for _, k := range []string{ServerError, Throttle, ServerErrAfter} {
		if seen[k] != faults[k] {
			t.Errorf("%s: client saw %d, proxy injected %d", k, seen[k], faults[k])
		}
	}
	if seen["dropped"] != faults[DropBefore]+faults[DropAfter] {
		t.Errorf("dropped: client saw %d, proxy injected %d", seen["dropped"], faults[DropBefore]+faults[DropAfter])
	}
	if want := faults[ServerErrAfter] + faults[DropAfter]; hits.Load() != want {
		t.Errorf("server reached %d times, want %d (the after-the-fact kinds only)", hits.Load(), want)
	}
}

func TestRateIsAShare(t *testing.T) {
	be, _ := backend(t)
	p := New(be.URL, 0.10, 7)
	srv := httptest.NewServer(p)
	defer srv.Close()
	for range 1000 {
		_, _, _ = call(t, srv.URL, "{}")
	}
	var broken int64
	_, faults := p.Counts()
	for _, v := range faults {
		broken += v
	}
	if broken < 60 || broken > 140 {
		t.Fatalf("%d of 1000 calls broken at rate 0.10", broken)
	}
}

// Delay adds its latency to every call, and the connections clients open
// are counted.
func TestDelayAndConnections(t *testing.T) {
	be, hits := backend(t)
	p := New(be.URL, 0, 1)
	p.Delay = 30 * time.Millisecond
	srv := httptest.NewUnstartedServer(p)
	srv.Config.ConnState = p.ConnState
	srv.Start()
	defer srv.Close()
	start := time.Now()
	status, got, err := call(t, srv.URL, "x")
	if err != nil || status != 200 || got != "echo:x" || hits.Load() != 1 {
		t.Fatalf("status %d body %q err %v hits %d", status, got, err, hits.Load())
	}
	if el := time.Since(start); el < p.Delay {
		t.Fatalf("call took %s, want at least the %s delay", el, p.Delay)
	}
	call(t, srv.URL, "y") // call opens a fresh connection each time
	if n := p.Conns(); n != 2 {
		t.Fatalf("%d connections counted, want 2", n)
	}
}

// A rule breaks exactly the calls it names: the 2nd and 3rd ReceiveMessage
// lose their answers after the server carried them out; other actions and
// the other receives pass.
func TestRuleBreaksTheNthMatchingCall(t *testing.T) {
	be, hits := backend(t)
	p := New(be.URL, 0, 1)
	rule := p.Break(&Rule{Match: SQSAction("ReceiveMessage"), N: 2, Times: 2, Kind: DropAfter})
	srv := httptest.NewServer(p)
	defer srv.Close()
	send := func(action string) error {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
		req.Header.Set("X-Amz-Target", "AmazonSQS."+action)
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	var got []bool
	for _, a := range []string{"ReceiveMessage", "DeleteMessageBatch", "ReceiveMessage", "ReceiveMessage", "ReceiveMessage"} {
		got = append(got, send(a) != nil)
	}
	want := []bool{false, false, true, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("calls broken %v, want %v", got, want)
		}
	}
	if rule.Hits() != 2 || hits.Load() != 5 {
		t.Fatalf("rule hits %d, server reached %d; want 2 and 5 (carried out, answer lost)", rule.Hits(), hits.Load())
	}
}

func TestS3PutObjectMatchesPlainPutsOnly(t *testing.T) {
	m := S3PutObject("/k.jsonl")
	for _, tc := range []struct {
		method, url string
		want        bool
	}{
		{"PUT", "http://h/b/dir/k.jsonl", true},
		{"PUT", "http://h/b/dir/k.jsonl?uploadId=1&partNumber=2", false},
		{"GET", "http://h/b/dir/k.jsonl", false},
		{"PUT", "http://h/b/dir/other.jsonl", false},
	} {
		req, _ := http.NewRequest(tc.method, tc.url, nil)
		if m(req) != tc.want {
			t.Errorf("%s %s: %v, want %v", tc.method, tc.url, !tc.want, tc.want)
		}
	}
}
