// Package inflight is a local stand-in for a limit of SQS that moto lacks:
// the in-flight quota. SQS lets about 120,000 messages of a queue be in
// flight (received and neither deleted nor back to visible); past it a
// long-poll receive comes back empty with no error, and a short poll gets
// OverLimit (the SQS Developer Guide's quotas pages; FIFO queues have the
// same 120,000 and return no error). moto hands out every message
// whatever is in flight, so code that holds what it reads (an export
// without --delete) never meets the limit in a test.
//
// The proxy sits in front of a real local SQS server (moto, fauxqs) and
// passes every call through. It counts, per queue, the messages received
// and not yet deleted, made visible again or expired (their visibility
// timeout), and with Limit of them in flight it answers a receive as SQS
// does: empty after the long poll's wait, or OverLimit on a short poll. A
// receive below the limit gets at most the room left. Limit is
// configurable and small in tests, so they stay fast.
//
// Only the JSON protocol (X-Amz-Target: AmazonSQS.*) is understood; mfdlq's
// SDK speaks nothing else to SQS.
package inflight

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httputil"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/internal/sqsproxy"
	"github.com/mfdlq/mfdlq/internal/standin"
)

// Proxy is the stand-in; it is an http.Handler.
type Proxy struct {
	// Limit is the messages a queue may have in flight.
	Limit int
	// MaxWait caps how long an empty long poll at the limit waits (0: the
	// request's WaitTimeSeconds, as SQS). Tests may shorten it.
	MaxWait time.Duration
	// Now is the clock of the visibility timeouts.
	Now func() time.Time

	sqs   *sqs.Client // reads a queue's default visibility timeout
	proxy *httputil.ReverseProxy

	mu     sync.Mutex
	queues map[string]*queue // by queue name

	empties, overLimits atomic.Int64
}

// New returns a proxy in front of backend enforcing limit; client is an SDK
// client pointed at backend.
func New(backend string, client *sqs.Client, limit int) (*Proxy, error) {
	proxy, err := standin.To(backend)
	if err != nil {
		return nil, err
	}
	return &Proxy{Limit: limit, Now: time.Now, sqs: client, proxy: proxy,
		queues: map[string]*queue{}}, nil
}

// InFlight is how many messages of the named queue are in flight now.
func (p *Proxy) InFlight(name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.queues[name]
	if q == nil {
		return 0
	}
	p.expire(q)
	return len(q.msgs)
}

// Refusals are the receives answered empty (long poll) and with OverLimit
// (short poll) because the queue was at the limit.
func (p *Proxy) Refusals() (empty, overLimit int64) { return p.empties.Load(), p.overLimits.Load() }

// ServeHTTP passes the call through, counting what goes in and out of
// flight and refusing receives at the limit.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := sqsproxy.Action(r)
	switch op {
	case "ReceiveMessage", "DeleteMessage", "DeleteMessageBatch", "ChangeMessageVisibility",
		"ChangeMessageVisibilityBatch", "PurgeQueue", "DeleteQueue":
	default:
		p.proxy.ServeHTTP(w, r)
		return
	}
	body, err := standin.Body(r, 0)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var in request
	if json.Unmarshal(body, &in) != nil {
		sqsproxy.Forward(p.proxy, w, r, body, nil)
		return
	}
	name := sqsproxy.QueueName(in.QueueUrl)
	if op == "ReceiveMessage" {
		p.receive(w, r, body, name, in)
		return
	}
	sqsproxy.Forward(p.proxy, w, r, body, func(status int, out []byte) []byte {
		if status == http.StatusOK {
			p.settle(op, name, in, out)
		}
		return out
	})
}

// request is the part of a request the proxy reads.
type request struct {
	QueueUrl            string
	MaxNumberOfMessages *int
	WaitTimeSeconds     *int
	VisibilityTimeout   *int
	ReceiptHandle       string
	Entries             []struct {
		Id                string
		ReceiptHandle     string
		VisibilityTimeout *int
	}
}

// receive refuses at the limit, else asks the backend for at most the
// room left and counts what it returned.
func (p *Proxy) receive(w http.ResponseWriter, r *http.Request, body []byte, name string, in request) {
	vis := p.visibility(r.Context(), name, in)
	p.mu.Lock()
	q := p.queue(name)
	p.expire(q)
	room := p.Limit - len(q.msgs) - q.reserved
	want := 1
	if in.MaxNumberOfMessages != nil {
		want = *in.MaxNumberOfMessages
	}
	n := min(want, room)
	if n > 0 {
		q.reserved += n
	}
	p.mu.Unlock()
	if n <= 0 {
		p.refuse(w, r, in)
		return
	}
	if n < want {
		body = withMax(body, n)
	}
	sqsproxy.Forward(p.proxy, w, r, body, func(status int, out []byte) []byte {
		p.mu.Lock()
		defer p.mu.Unlock()
		q.reserved -= n
		if status != http.StatusOK || vis <= 0 {
			return out
		}
		var res struct {
			Messages []struct{ MessageId, ReceiptHandle string }
		}
		if json.Unmarshal(out, &res) != nil {
			return out
		}
		until := p.Now().Add(vis)
		for _, m := range res.Messages {
			if old := q.msgs[m.MessageId]; old != nil {
				delete(q.handles, old.handle)
			}
			q.msgs[m.MessageId] = &held{handle: m.ReceiptHandle, until: until}
			q.handles[m.ReceiptHandle] = m.MessageId
		}
		return out
	})
}

// refuse answers a receive at the limit as SQS does: a long poll waits
// and comes back empty, a short poll gets OverLimit.
func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request, in request) {
	if in.WaitTimeSeconds != nil && *in.WaitTimeSeconds > 0 {
		p.empties.Add(1)
		wait := time.Duration(*in.WaitTimeSeconds) * time.Second
		if p.MaxWait > 0 {
			wait = min(wait, p.MaxWait)
		}
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		io.WriteString(w, "{}")
		return
	}
	p.overLimits.Add(1)
	sqsproxy.Refuse(w, http.StatusForbidden, "OverLimit", "AWS.SimpleQueueService.OverLimit;Sender",
		"Too many messages in flight: the queue's in-flight limit of "+strconv.Itoa(p.Limit)+" is reached.")
}

// settle takes deleted and released messages out of flight.
func (p *Proxy) settle(op, name string, in request, out []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.queue(name)
	switch op {
	case "PurgeQueue", "DeleteQueue":
		delete(p.queues, name)
	case "DeleteMessage":
		q.drop(in.ReceiptHandle)
	case "ChangeMessageVisibility":
		q.change(in.ReceiptHandle, in.VisibilityTimeout, p.Now())
	case "DeleteMessageBatch", "ChangeMessageVisibilityBatch":
		var res struct{ Successful []struct{ Id string } }
		if json.Unmarshal(out, &res) != nil {
			return
		}
		ok := map[string]bool{}
		for _, s := range res.Successful {
			ok[s.Id] = true
		}
		for _, e := range in.Entries {
			switch {
			case !ok[e.Id]:
			case op == "DeleteMessageBatch":
				q.drop(e.ReceiptHandle)
			default:
				q.change(e.ReceiptHandle, e.VisibilityTimeout, p.Now())
			}
		}
	}
}

// visibility is the receive's VisibilityTimeout, else the queue's.
func (p *Proxy) visibility(ctx context.Context, name string, in request) time.Duration {
	if in.VisibilityTimeout != nil {
		return time.Duration(*in.VisibilityTimeout) * time.Second
	}
	p.mu.Lock()
	q := p.queue(name)
	vis, known := q.vis, q.visKnown
	p.mu.Unlock()
	if known {
		return vis
	}
	vis = 30 * time.Second // SQS's default
	secs, err := sqsproxy.QueueAttribute(ctx, p.sqs, in.QueueUrl, types.QueueAttributeNameVisibilityTimeout)
	if err == nil {
		if s, err := strconv.Atoi(secs); err == nil {
			vis = time.Duration(s) * time.Second
		}
	}
	p.mu.Lock()
	q.vis, q.visKnown = vis, true
	p.mu.Unlock()
	return vis
}

// withMax rewrites a receive's MaxNumberOfMessages; a body that does not
// decode is left as it is.
func withMax(body []byte, n int) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	m["MaxNumberOfMessages"] = json.RawMessage(strconv.Itoa(n))
	b, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return b
}
