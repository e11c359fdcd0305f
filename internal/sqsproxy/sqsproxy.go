// Package sqsproxy is what every SQS stand-in in internal/ (dlqsource,
// sqslimits, inflight, movetasks, awslimits) adds to internal/standin's
// pass-through: the action a call names, the backend's answer held whole
// so a stand-in can read or rewrite it, and an error answered as SQS's
// JSON protocol does. A stand-in keeps only what it adds to SQS.
package sqsproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Action is the SQS action a JSON-protocol call names (X-Amz-Target:
// AmazonSQS.Action), or the header as it is for any other call.
func Action(r *http.Request) string {
	return strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")
}

// Forward passes the call, with body, to next and holds its answer whole;
// edit (if not nil) sees the status and the body and returns the body
// passed on, so a short read never reaches the SDK (docs/aws.md).
func Forward(next http.Handler, w http.ResponseWriter, r *http.Request, body []byte, edit func(status int, out []byte) []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	next.ServeHTTP(rec, r)
	out := rec.body.Bytes()
	if edit != nil {
		out = edit(rec.status, out)
	}
	for k, vs := range rec.header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(rec.status)
	w.Write(out)
}

// recorder holds a backend answer whole.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(s int)           { r.status = s }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }

// Refuse answers a call as SQS's JSON protocol answers an error: status,
// {"__type": "com.amazonaws.sqs#code", "message": …}, and the
// query-compatible x-amzn-query-error header when query is not "" (the SDK
// reports that header's code, so a stand-in sends what SQS sends).
func Refuse(w http.ResponseWriter, status int, code, query, message string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	if query != "" {
		w.Header().Set("x-amzn-query-error", query)
	}
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"__type": "com.amazonaws.sqs#" + code, "message": message})
	w.Write(b)
}

// QueueName is the name at the end of a queue URL.
func QueueName(queueURL string) string {
	return queueURL[strings.LastIndex(queueURL, "/")+1:]
}

// QueueAttribute reads one attribute of a queue from the backend ("" when
// the backend does not say).
func QueueAttribute(ctx context.Context, client *sqs.Client, queueURL string, name types.QueueAttributeName) (string, error) {
	out, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(queueURL),
		AttributeNames: []types.QueueAttributeName{name}})
	if err != nil {
		return "", err
	}
	return out.Attributes[string(name)], nil
}
