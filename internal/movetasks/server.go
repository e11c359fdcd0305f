// Package movetasks is a local stand-in for SQS's message move tasks
// (StartMessageMoveTask, ListMessageMoveTasks, CancelMessageMoveTask),
// which neither moto nor fauxqs implements. It sits in front of a real
// local SQS server: it answers those three calls itself, as SQS documents
// them, carries the move out against the server with the SDK, and passes
// every other call through.
//
// What it keeps from SQS: the source must be the DLQ of some queue; one
// active task per source queue; MaxNumberOfMessagesPerSecond 1-500; the
// statuses RUNNING, COMPLETED, CANCELLING, CANCELLED and FAILED; a task
// handle only while RUNNING; the ten most recent tasks, newest first;
// cancelling only a RUNNING task, without undoing what was moved; without
// a DestinationArn, each message back to its own source queue (its
// DeadLetterQueueSourceArn: put internal/dlqsource between the stand-in and
// moto, which does not set that attribute).
package movetasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Server is the stand-in; it is an http.Handler.
type Server struct {
	sqs   *sqs.Client // talks to the backend
	proxy *httputil.ReverseProxy

	mu    sync.Mutex
	tasks map[string][]*task // source ARN → tasks, oldest first
	seq   int
	// FailNext makes the next task started fail after it moved this many
	// messages (-1: never), to exercise FAILED.
	FailAfter int
}

// New returns a stand-in in front of backend, moving with client (an SDK
// client pointed at backend).
func New(backend string, client *sqs.Client) (*Server, error) {
	u, err := url.Parse(backend)
	if err != nil {
		return nil, err
	}
	return &Server{sqs: client, proxy: httputil.NewSingleHostReverseProxy(u), tasks: map[string][]*task{}, FailAfter: -1}, nil
}

// ServeHTTP answers the move task calls and passes the rest through.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")
	var handle func([]byte) (any, *apiError)
	switch op {
	case "StartMessageMoveTask":
		handle = s.start
	case "ListMessageMoveTasks":
		handle = s.list
	case "CancelMessageMoveTask":
		handle = s.cancel
	default:
		s.proxy.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeErr(w, &apiError{400, "InvalidParameterValue", err.Error()})
		return
	}
	out, aerr := handle(body)
	if aerr != nil {
		writeErr(w, aerr)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	json.NewEncoder(w).Encode(out)
}

type apiError struct {
	status  int
	code    string
	message string
}

func writeErr(w http.ResponseWriter, e *apiError) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(e.status)
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(map[string]string{"__type": "com.amazonaws.sqs#" + e.code, "message": e.message})
	w.Write(b.Bytes())
}

func errorf(code, format string, args ...any) *apiError {
	return &apiError{400, code, fmt.Sprintf(format, args...)}
}
