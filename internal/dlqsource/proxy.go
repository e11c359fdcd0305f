// Package dlqsource is a local stand-in for one piece of SQS that moto
// lacks: the message system attribute DeadLetterQueueSourceArn. SQS sets
// it on a message that its redrive policy moved into a dead-letter queue:
// the ARN of the queue the message was moved from. moto moves such
// messages (on the receive that exceeds maxReceiveCount) but records no
// source, so a DLQ shared by several queues looks as if it had none.
//
// The proxy sits in front of a real local SQS server and passes every call
// through. It remembers, for each message sent through it, the queue it was
// sent to; when a receive returns a message from another queue than the
// one it was sent to, the message can only have been moved there by the
// redrive policy (a move task or mfdlq sends a copy under a new
// MessageId), so the proxy adds DeadLetterQueueSourceArn — only when the
// receive asked for it (All or the name itself), as SQS does. A message
// sent straight to the DLQ carries no source, as in SQS; a source queue
// deleted since keeps its ARN on the message, as in SQS.
//
// Only the JSON protocol (X-Amz-Target: AmazonSQS.*) is understood; mfdlq's
// SDK speaks nothing else to SQS.
package dlqsource

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httputil"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/internal/sqsproxy"
	"github.com/mfdlq/mfdlq/internal/standin"
)

// Attribute is the system attribute's name.
const Attribute = "DeadLetterQueueSourceArn"

// MaxTracked bounds the messages remembered: a test harness, but one that
// load tests run for a long time. The oldest sends are forgotten first; a
// forgotten message arrives in the DLQ without a source, which mfdlq must
// handle anyway (a message sent to the DLQ directly).
const MaxTracked = 1_000_000

// Proxy is the stand-in; it is an http.Handler.
type Proxy struct {
	sqs   *sqs.Client // looks up queue ARNs on the backend
	proxy *httputil.ReverseProxy

	mu     sync.Mutex
	origin map[string]string // MessageId → ARN of the queue it was sent to
	order  []string          // MessageIds in the order they were sent, for MaxTracked
	arns   map[string]string // queue name → ARN
}

// New returns a proxy in front of backend; client is an SDK client pointed
// at backend.
func New(backend string, client *sqs.Client) (*Proxy, error) {
	proxy, err := standin.To(backend)
	if err != nil {
		return nil, err
	}
	return &Proxy{sqs: client, proxy: proxy,
		origin: map[string]string{}, arns: map[string]string{}}, nil
}

// ServeHTTP passes the call through, noting sends and annotating receives.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := sqsproxy.Action(r)
	switch op {
	case "SendMessage", "SendMessageBatch", "ReceiveMessage":
	default:
		p.proxy.ServeHTTP(w, r)
		return
	}
	reqBody, err := standin.Body(r, 0)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	sqsproxy.Forward(p.proxy, w, r, reqBody, func(status int, out []byte) []byte {
		switch {
		case status != http.StatusOK:
		case op == "ReceiveMessage":
			return p.annotate(r.Context(), reqBody, out)
		default:
			p.noteSends(r.Context(), reqBody, out)
		}
		return out
	})
}

// noteSends remembers the queue each sent message went to.
func (p *Proxy) noteSends(ctx context.Context, req, resp []byte) {
	var in struct{ QueueUrl string }
	var out struct {
		MessageId  string
		Successful []struct{ MessageId string }
	}
	if json.Unmarshal(req, &in) != nil || json.Unmarshal(resp, &out) != nil {
		return
	}
	arn, err := p.arnOf(ctx, in.QueueUrl)
	if err != nil {
		return
	}
	ids := []string{out.MessageId}
	for _, s := range out.Successful {
		ids = append(ids, s.MessageId)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range ids {
		if id == "" {
			continue
		}
		if _, ok := p.origin[id]; !ok {
			p.order = append(p.order, id)
		}
		p.origin[id] = arn
	}
	for len(p.order) > MaxTracked {
		delete(p.origin, p.order[0])
		p.order = p.order[1:]
	}
}

// annotate adds the source ARN to the received messages that came from
// another queue, when the receive asked for it. The response is otherwise
// passed on as it came; one that does not decode is passed on untouched.
func (p *Proxy) annotate(ctx context.Context, req, resp []byte) []byte {
	var in struct {
		QueueUrl                    string
		AttributeNames              []string
		MessageSystemAttributeNames []string
	}
	if json.Unmarshal(req, &in) != nil || !asked(in.AttributeNames, in.MessageSystemAttributeNames) {
		return resp
	}
	var out map[string]json.RawMessage
	if json.Unmarshal(resp, &out) != nil || out["Messages"] == nil {
		return resp
	}
	var msgs []map[string]json.RawMessage
	if json.Unmarshal(out["Messages"], &msgs) != nil {
		return resp
	}
	here, err := p.arnOf(ctx, in.QueueUrl)
	if err != nil {
		return resp
	}
	changed := false
	for _, m := range msgs {
		var id string
		if json.Unmarshal(m["MessageId"], &id) != nil {
			continue
		}
		p.mu.Lock()
		src, ok := p.origin[id]
		p.mu.Unlock()
		if !ok || src == here {
			continue
		}
		attrs := map[string]string{}
		if raw := m["Attributes"]; raw != nil {
			_ = json.Unmarshal(raw, &attrs)
		}
		attrs[Attribute] = src
		b, _ := json.Marshal(attrs)
		m["Attributes"] = b
		changed = true
	}
	if !changed {
		return resp
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		return resp
	}
	out["Messages"] = b
	if res, err := json.Marshal(out); err == nil {
		return res
	}
	return resp
}

// asked tells whether a receive asked for the source attribute.
func asked(lists ...[]string) bool {
	for _, l := range lists {
		for _, n := range l {
			if n == "All" || n == Attribute {
				return true
			}
		}
	}
	return false
}

// arnOf is the ARN of a queue URL, cached by the queue's name: a queue
// deleted and created again under the same name in a test gets the same
// ARN in SQS too.
func (p *Proxy) arnOf(ctx context.Context, queueURL string) (string, error) {
	name := sqsproxy.QueueName(queueURL)
	p.mu.Lock()
	arn, ok := p.arns[name]
	p.mu.Unlock()
	if ok {
		return arn, nil
	}
	arn, err := sqsproxy.QueueAttribute(ctx, p.sqs, queueURL, types.QueueAttributeNameQueueArn)
	if err != nil {
		return "", err
	}
	if arn == "" {
		return "", fmt.Errorf("no ARN for %s", name)
	}
	p.mu.Lock()
	p.arns[name] = arn
	p.mu.Unlock()
	return arn, nil
}
