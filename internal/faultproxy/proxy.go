// Package faultproxy is an HTTP proxy for tests and benchmarks that sits
// between mfdlq and a local SQS server and breaks a share of the calls the
// way AWS does on a bad day: 5xx answers, throttling, and connections that
// drop — before the request reaches the server, or after it was carried
// out (the client then cannot know whether a send or a delete happened).
// It can also add a fixed latency to every call (Delay), the round trip of
// a real SQS endpoint that a local server answers in well under a
// millisecond.
package faultproxy

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Fault kinds.
const (
	None           = "none"
	ServerError    = "5xx"         // 500 InternalError, request not forwarded
	ServerErrAfter = "5xx-after"   // forwarded and carried out, then 503
	Throttle       = "throttle"    // 400 ThrottlingException, not forwarded
	DropBefore     = "drop-before" // connection closed, request not forwarded
	DropAfter      = "drop-after"  // forwarded and carried out, connection closed
	// Forbid404 is S3 without s3:ListBucket: forwarded, and a 404 (an
	// absent key) is answered 403 AccessDenied, as S3 answers a caller
	// that may not list the bucket.
	Forbid404 = "403-for-404"
)

var kinds = []string{ServerError, ServerErrAfter, Throttle, DropBefore, DropAfter}

// Proxy forwards to Target and injects a fault into Rate of the calls.
type Proxy struct {
	Target string
	Rate   float64
	// Delay is added to every call: half before the request reaches the
	// server, half before the answer leaves, as a network round trip
	// splits. A long poll waits its own time on top.
	Delay time.Duration
	// Choose, when set, picks each call's fault instead of the rules and
	// Rate (None: pass it through): a test that breaks one named call,
	// deterministically.
	Choose func(r *http.Request) string
	client *http.Client
	conns  atomic.Int64

	mu     sync.Mutex
	rng    *rand.Rand
	rules  []*Rule // Break: chosen calls, before the random faults
	calls  atomic.Int64
	counts sync.Map // kind → *atomic.Int64
}

// New returns a proxy to target breaking rate (0-1) of the calls, with a
// seeded random source so a failing run can be repeated.
func New(target string, rate float64, seed uint64) *Proxy {
	// The proxy's own client keeps as many idle connections as its callers
	// may have calls in flight: it must not be the bottleneck it measures.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 1024, 1024
	return &Proxy{Target: target, Rate: rate, client: &http.Client{Transport: tr}, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// ConnState counts the connections clients open; set it as the
// http.Server's ConnState.
func (p *Proxy) ConnState(_ net.Conn, st http.ConnState) {
	if st == http.StateNew {
		p.conns.Add(1)
	}
}

// Conns is how many connections clients opened (with ConnState set).
func (p *Proxy) Conns() int64 { return p.conns.Load() }

// Counts returns the calls seen and the faults injected by kind.
func (p *Proxy) Counts() (calls int64, faults map[string]int64) {
	faults = map[string]int64{}
	p.counts.Range(func(k, v any) bool {
		faults[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return p.calls.Load(), faults
}

func (p *Proxy) pick() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rng.Float64() >= p.Rate {
		return None
	}
	return kinds[p.rng.IntN(len(kinds))]
}

func (p *Proxy) count(kind string) {
	v, _ := p.counts.LoadOrStore(kind, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

// ServeHTTP forwards one call, perhaps breaking it.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.calls.Add(1)
	var kind string
	switch {
	case p.Choose != nil:
		kind = p.Choose(r)
	default:
		if kind = p.ruleKind(r); kind == "" {
			kind = p.pick()
		}
	}
	if kind != None {
		p.count(kind)
	}
	switch kind {
	case ServerError:
		jsonError(w, http.StatusInternalServerError, "InternalError", "injected: internal error")
		return
	case Throttle:
		jsonError(w, http.StatusBadRequest, "ThrottlingException", "injected: rate exceeded")
		return
	case DropBefore:
		drop(w)
		return
	}
	time.Sleep(p.Delay / 2)
	status, header, body, err := p.forward(r)
	time.Sleep(p.Delay - p.Delay/2)
	if err != nil {
		jsonError(w, http.StatusBadGateway, "InternalError", err.Error())
		return
	}
	switch kind {
	case ServerErrAfter:
		jsonError(w, http.StatusServiceUnavailable, "ServiceUnavailable", "injected: unavailable after the fact")
		return
	case DropAfter:
		drop(w)
		return
	case Forbid404:
		if status == http.StatusNotFound {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>injected: Access Denied</Message></Error>`)
			return
		}
	}
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(status)
	w.Write(body)
}

func (p *Proxy) forward(r *http.Request) (int, http.Header, []byte, error) {
	in, err := io.ReadAll(r.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.Target+r.URL.RequestURI(), bytes.NewReader(in))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header = r.Header.Clone()
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	resp.Header.Del("Content-Length")
	return resp.StatusCode, resp.Header, body, err
}

// jsonError answers in the SQS JSON protocol's error shape.
func jsonError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"__type":"com.amazonaws.sqs#%s","message":%q}`, code, msg)
}

// drop closes the connection without an answer.
func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}
