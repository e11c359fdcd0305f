// Package sqslimits is a local stand-in for SQS's message size limits as
// production enforces them and moto does not. The SendMessage and
// SendMessageBatch references (2025 on): a message may be as large as its
// queue's MaximumMessageSize (1,024 bytes to 1 MiB, 1,048,576; 256 KiB
// until a queue is raised), and a message's size is its body plus each
// message attribute's name, data type and value; a SendMessageBatch's
// messages together may be at most 1 MiB. moto weighs the body alone, so
// a stamp or a repaired attribute that tips a message over its queue's
// limit passes there and fails on AWS.
//
// The proxy sits in front of a real local SQS server and passes every
// call through. A SendMessage or SendMessageBatch is weighed first: a
// message over its queue's MaximumMessageSize (read once per queue from
// the backend) is refused with InvalidParameterValue, a batch over 1 MiB
// with BatchRequestTooLong, as SQS answers, and nothing is sent. Only the
// JSON protocol (X-Amz-Target: AmazonSQS.*) is understood; mfdlq's SDK
// speaks nothing else to SQS.
package sqslimits

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httputil"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/internal/sqsproxy"
	"github.com/mfdlq/mfdlq/internal/standin"
)

// MaxBatchBytes is a SendMessageBatch's limit on all its messages together.
const MaxBatchBytes = 1 << 20

// DefaultMaxMessage is a queue's MaximumMessageSize when it does not say.
const DefaultMaxMessage = 256 << 10

// Proxy is the stand-in; it is an http.Handler.
type Proxy struct {
	sqs   *sqs.Client // reads a queue's MaximumMessageSize
	proxy *httputil.ReverseProxy

	mu      sync.Mutex
	limits  map[string]int // by queue URL
	batches []int          // messages of each batch passed through
	refused []string       // the error code of each refusal
}

// New returns a proxy in front of backend; client is an SDK client
// pointed at backend.
func New(backend string, client *sqs.Client) (*Proxy, error) {
	proxy, err := standin.To(backend)
	if err != nil {
		return nil, err
	}
	return &Proxy{sqs: client, proxy: proxy, limits: map[string]int{}}, nil
}

// Batches are how many messages each SendMessageBatch passed through
// carried, in order.
func (p *Proxy) Batches() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int(nil), p.batches...)
}

// Refused are the error codes of the sends refused, in order.
func (p *Proxy) Refused() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.refused...)
}

// message is the part of a sent message the size is made of.
type message struct {
	MessageBody       string
	MessageAttributes map[string]struct {
		DataType    string
		StringValue *string
		BinaryValue *string // base64, as the JSON protocol carries it
	}
}

// size is the message's size as SQS counts it: the body and each
// attribute's name, data type and value (a binary value's bytes).
func (m message) size() int {
	n := len(m.MessageBody)
	for name, a := range m.MessageAttributes {
		n += len(name) + len(a.DataType) + len(aws.ToString(a.StringValue))
		if a.BinaryValue != nil {
			if b, err := base64.StdEncoding.DecodeString(*a.BinaryValue); err == nil {
				n += len(b)
			} else {
				n += len(*a.BinaryValue)
			}
		}
	}
	return n
}

// request is a SendMessage's or SendMessageBatch's body.
type request struct {
	QueueUrl string
	message
	Entries []message
}

// ServeHTTP weighs a send and refuses it over the limits; everything else
// passes through.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := sqsproxy.Action(r)
	if op != "SendMessage" && op != "SendMessageBatch" {
		p.proxy.ServeHTTP(w, r)
		return
	}
	body, err := standin.Body(r, 0)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var in request
	if json.Unmarshal(body, &in) == nil {
		msgs := []message{in.message}
		if op == "SendMessageBatch" {
			msgs = in.Entries
		}
		if code, msg := p.weigh(r.Context(), in.QueueUrl, msgs); code != "" {
			p.mu.Lock()
			p.refused = append(p.refused, code)
			p.mu.Unlock()
			refuse(w, code, msg)
			return
		}
		if op == "SendMessageBatch" {
			p.mu.Lock()
			p.batches = append(p.batches, len(in.Entries))
			p.mu.Unlock()
		}
	}
	p.proxy.ServeHTTP(w, r)
}

// weigh is the refusal of msgs sent to queue ("" when they fit).
func (p *Proxy) weigh(ctx context.Context, queue string, msgs []message) (code, msg string) {
	limit := p.limit(ctx, queue)
	total := 0
	for _, m := range msgs {
		n := m.size()
		if n > limit {
			return "InvalidParameterValue", fmt.Sprintf("One or more parameters are invalid. Reason: Message must be shorter than %d bytes.", limit)
		}
		total += n
	}
	if len(msgs) > 1 && total > MaxBatchBytes {
		return "BatchRequestTooLong", fmt.Sprintf("Batch requests cannot be longer than %d bytes. You have sent %d bytes.", MaxBatchBytes, total)
	}
	return "", ""
}

// limit is the queue's MaximumMessageSize, read once.
func (p *Proxy) limit(ctx context.Context, queue string) int {
	p.mu.Lock()
	n, ok := p.limits[queue]
	p.mu.Unlock()
	if ok {
		return n
	}
	n = DefaultMaxMessage
	size, err := sqsproxy.QueueAttribute(ctx, p.sqs, queue, types.QueueAttributeNameMaximumMessageSize)
	if err == nil {
		if v, err := strconv.Atoi(size); err == nil && v > 0 {
			n = v
		}
		p.mu.Lock()
		p.limits[queue] = n
		p.mu.Unlock()
	}
	return n
}

// refuse answers as SQS does for a sender's fault: the query-compatible
// code of InvalidParameterValue is bare, the others' are
// AWS.SimpleQueueService.<code>.
func refuse(w http.ResponseWriter, code, msg string) {
	query := "AWS.SimpleQueueService." + code + ";Sender"
	if code == "InvalidParameterValue" {
		query = code + ";Sender"
	}
	sqsproxy.Refuse(w, http.StatusBadRequest, code, query, msg)
}
