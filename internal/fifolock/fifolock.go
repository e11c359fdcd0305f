// Package fifolock is a stand-in in front of moto for one promise of SQS
// FIFO queues that moto does not keep under concurrency: a ReceiveMessage
// never returns a message of a group that still has messages in flight.
// moto works out the groups in flight once, at the start of a receive,
// and a long poll then waits on that stale answer: a group freed during
// the wait stays locked, and one taken during it by another receive is
// still served (measured before our server serialised a queue's calls:
// 16 receivers on 5 groups, 2 such deliveries in 200 messages; the server
// now holds the queue's lock for a receive, but not across a long poll's
// wait). The proxy makes every receive of a FIFO queue atomic: it
// forwards them one at a time per queue, as short polls, and waits for a
// long poll itself between them (returning as soon as a receive brings
// messages, or empty when the wait is over, as SQS does). Every other
// call passes through.
package fifolock

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Proxy forwards to Target.
type Proxy struct {
	Target string
	client *http.Client
	mu     sync.Mutex
	queues map[string]*sync.Mutex
}

// New returns a proxy to target.
func New(target string) *Proxy {
	return &Proxy{Target: target, client: &http.Client{}, queues: map[string]*sync.Mutex{}}
}

// ServeHTTP forwards one call; a FIFO receive under its queue's lock.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	// The request passes through as it came, but for its wait.
	var in map[string]json.RawMessage
	if r.Header.Get("X-Amz-Target") == "AmazonSQS.ReceiveMessage" && json.Unmarshal(body, &in) == nil {
		var url string
		if json.Unmarshal(in["QueueUrl"], &url) == nil && strings.HasSuffix(url, ".fifo") {
			p.receive(w, r, url, in)
			return
		}
	}
	p.write(w, p.forward(r, body))
}

// receive polls the queue with short receives, one at a time per queue,
// until one brings messages or the asked-for wait is over.
func (p *Proxy) receive(w http.ResponseWriter, r *http.Request, url string, in map[string]json.RawMessage) {
	var wait float64
	_ = json.Unmarshal(in["WaitTimeSeconds"], &wait)
	in["WaitTimeSeconds"] = json.RawMessage("0")
	body, _ := json.Marshal(in)
	deadline := time.Now().Add(time.Duration(wait * float64(time.Second)))
	lock := p.lock(url)
	for {
		lock.Lock()
		res := p.forward(r, body)
		lock.Unlock()
		if res.err != nil || res.status != http.StatusOK || bytes.Contains(res.body, []byte(`"Messages"`)) || !time.Now().Before(deadline) {
			p.write(w, res)
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (p *Proxy) lock(url string) *sync.Mutex {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.queues[url] == nil {
		p.queues[url] = &sync.Mutex{}
	}
	return p.queues[url]
}

type result struct {
	status int
	header http.Header
	body   []byte
	err    error
}

func (p *Proxy) forward(r *http.Request, body []byte) result {
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.Target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return result{err: err}
	}
	req.Header = r.Header.Clone()
	resp, err := p.client.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	resp.Header.Del("Content-Length")
	return result{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

func (p *Proxy) write(w http.ResponseWriter, res result) {
	if res.err != nil {
		http.Error(w, res.err.Error(), http.StatusBadGateway)
		return
	}
	for k, vs := range res.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(res.status)
	w.Write(res.body)
}
