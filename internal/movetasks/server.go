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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/internal/sqsproxy"
	"github.com/mfdlq/mfdlq/internal/standin"
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
	proxy, err := standin.To(backend)
	if err != nil {
		return nil, err
	}
	return &Server{sqs: client, proxy: proxy, tasks: map[string][]*task{}, FailAfter: -1}, nil
}

// ServeHTTP answers the move task calls and passes the rest through.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var handle func([]byte) (any, *apiError)
	switch sqsproxy.Action(r) {
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
		writeErr(w, &apiError{"InvalidParameterValue", err.Error()})
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

// apiError is a refusal SQS answers with 400.
type apiError struct {
	code    string
	message string
}

func writeErr(w http.ResponseWriter, e *apiError) {
	sqsproxy.Refuse(w, http.StatusBadRequest, e.code, "", e.message)
}

func errorf(code, format string, args ...any) *apiError {
	return &apiError{code, fmt.Sprintf(format, args...)}
}
