package faultproxy

import (
	"net/http"
	"strings"
	"sync"
)

// Rule breaks chosen calls instead of a random share: from the Nth call
// that Match accepts (counting from 1), Times calls in a row get Kind. So a
// test makes "SQS carried out the 3rd ReceiveMessage and its answer was
// lost" certain, not likely: {Match: SQSAction("ReceiveMessage"), N: 3,
// Times: 1, Kind: DropAfter}. With Times at least the SDK's attempts, the
// caller sees the error; with 1 the SDK's retry hides it — both happen on
// a bad day.
type Rule struct {
	Match func(*http.Request) bool
	N     int
	Times int // default 1
	Kind  string

	mu   sync.Mutex
	seen int
	hits int
}

// Hits is how many calls the rule broke.
func (r *Rule) Hits() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits
}

// take counts a matching call and tells whether it is one to break.
func (r *Rule) take(req *http.Request) bool {
	if !r.Match(req) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen++
	if r.seen >= r.N && r.seen < r.N+max(r.Times, 1) {
		r.hits++
		return true
	}
	return false
}

// SQSAction matches an SQS JSON-protocol call by its action
// (X-Amz-Target: AmazonSQS.ReceiveMessage).
func SQSAction(action string) func(*http.Request) bool {
	return func(r *http.Request) bool { return r.Header.Get("X-Amz-Target") == "AmazonSQS."+action }
}

// S3PutObject matches a plain (not multipart) S3 PutObject of a key ending
// in suffix, path-style or virtual-hosted.
func S3PutObject(suffix string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		q := r.URL.Query()
		return r.Method == http.MethodPut && !q.Has("uploadId") && !q.Has("partNumber") &&
			r.Header.Get("X-Amz-Copy-Source") == "" && strings.HasSuffix(r.URL.Path, suffix)
	}
}

// Break adds a rule; rules are tried before the random faults, in order.
func (p *Proxy) Break(r *Rule) *Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, r)
	return r
}

// ruleKind is the fault a rule picks for req, or "" when none does.
func (p *Proxy) ruleKind(req *http.Request) string {
	p.mu.Lock()
	rules := p.rules
	p.mu.Unlock()
	for _, r := range rules {
		if r.take(req) {
			return r.Kind
		}
	}
	return ""
}
