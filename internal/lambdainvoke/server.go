// Package lambdainvoke is a local stand-in for Lambda's Invoke with
// InvocationType Event, which moto accepts but can only run in Docker. It
// sits in front of a real local Lambda (moto): it answers Invoke itself, as
// the Lambda API reference documents it, records every invocation it
// accepted, and passes every other call (GetFunction, ListFunctions,
// GetFunctionEventInvokeConfig …) through.
//
// What it keeps from Lambda's Invoke (POST
// /2015-03-31/functions/{FunctionName}/invocations[?Qualifier=]):
//   - the function (name, ARN or partial ARN, with an optional :qualifier or
//     ?Qualifier=) must exist in the backend: else 404 ResourceNotFoundException
//     (a backend that cannot be read answers 500 ServiceException);
//   - the payload must be JSON: else 400 InvalidRequestContentException; an
//     asynchronous payload above 1 MB (1,048,576 bytes; 256 KB before
//     2025) is 413 RequestTooLargeException;
//   - X-Amz-Invocation-Type Event answers 202 with an empty body and an
//     x-amzn-RequestId; RequestResponse and DryRun are not served here (400);
//   - errors carry x-amzn-ErrorType and a JSON body {"Type","message"}, and
//     429 TooManyRequestsException adds Retry-After and a Reason.
//
// Faults are injected by Fault: a throttle (429) or a service error (500)
// for chosen invocation attempts; a refused attempt records nothing.
//
// With Logs set, each accepted invocation also runs, as far as its logs
// go: the stand-in writes what Lambda's Python runtime writes to the
// function's log group (/aws/lambda/<name>, one stream per invocation) —
// START RequestId, the unhandled exception's "[ERROR] …" and Traceback
// when Fails says the handler raises, END and REPORT RequestId — so that
// a reader of the logs meets the lines production has.
package lambdainvoke

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	cwltypes "github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/mfdlq/mfdlq/internal/standin"
)

// MaxAsyncPayload is the asynchronous invocation payload limit: "For
// asynchronous invocations, the maximum payload size is 1 MB" (Invoke).
const MaxAsyncPayload = 1 << 20

// Invocation is one accepted asynchronous invocation.
type Invocation struct {
	Function  string // the function's ARN as the backend names it
	Qualifier string // version or alias ("" for $LATEST unqualified)
	RequestID string
	Payload   []byte
	Time      time.Time
}

// Server is the stand-in; it is an http.Handler.
type Server struct {
	lambda *lambda.Client // reads functions from the backend
	proxy  *httputil.ReverseProxy

	mu       sync.Mutex
	attempts int
	invoked  []Invocation
	// Fault, when set, is asked before each invocation attempt (n counts
	// attempts from 1): 429 answers TooManyRequestsException, 500
	// ServiceException, 0 accepts.
	Fault func(n int) int
	// Logs, when set, receives each accepted invocation's log lines;
	// Fails, when set, tells whether its handler raises on payload (the
	// exception's message; "" runs clean).
	Logs  *cloudwatchlogs.Client
	Fails func(payload []byte) string
}

// New returns a stand-in in front of backend, reading functions with
// client (an SDK client pointed at backend).
func New(backend string, client *lambda.Client) (*Server, error) {
	proxy, err := standin.To(backend)
	if err != nil {
		return nil, err
	}
	return &Server{lambda: client, proxy: proxy}, nil
}

// Invocations returns a copy of what was accepted so far, in order.
func (s *Server) Invocations() []Invocation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Invocation(nil), s.invoked...)
}

// Attempts is how many Invoke calls came in, refused ones included.
func (s *Server) Attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts
}

// ServeHTTP answers Invoke and passes the rest through.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/2015-03-31/functions/")
	name, isInvoke := strings.CutSuffix(rest, "/invocations")
	if !ok || !isInvoke || r.Method != http.MethodPost {
		s.proxy.ServeHTTP(w, r)
		return
	}
	name, _ = url.PathUnescape(name)
	s.invoke(w, r, name)
}

func (s *Server) invoke(w http.ResponseWriter, r *http.Request, name string) {
	s.mu.Lock()
	s.attempts++
	n := s.attempts
	s.mu.Unlock()
	if typ := r.Header.Get("X-Amz-Invocation-Type"); typ != "Event" {
		writeErr(w, 400, "InvalidParameterValueException", fmt.Sprintf("this stand-in serves InvocationType Event only, got %q", typ))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxAsyncPayload+1))
	switch {
	case err != nil:
		writeErr(w, 400, "InvalidRequestContentException", err.Error())
		return
	case len(body) > MaxAsyncPayload:
		writeErr(w, 413, "RequestTooLargeException", fmt.Sprintf("Request must be smaller than %d bytes for the InvokeAsync operation", MaxAsyncPayload))
		return
	case len(body) > 0 && !json.Valid(body):
		writeErr(w, 400, "InvalidRequestContentException", "Could not parse request body into json")
		return
	}
	qualifier := r.URL.Query().Get("Qualifier")
	fn, err := s.lambda.GetFunction(r.Context(), &lambda.GetFunctionInput{FunctionName: aws.String(name), Qualifier: optional(qualifier)})
	var missing *ltypes.ResourceNotFoundException
	switch {
	case errors.As(err, &missing):
		writeErr(w, 404, "ResourceNotFoundException", "Function not found: "+name)
		return
	case err != nil:
		// The backend could not say (a busy moto, a broken connection):
		// Lambda's own trouble is a 500, which a caller retries, not a
		// missing function, which it does not.
		writeErr(w, 500, "ServiceException", "An internal error occurred")
		return
	}
	if s.Fault != nil {
		switch s.Fault(n) {
		case 429:
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, "TooManyRequestsException", map[string]string{"Type": "User", "message": "Rate Exceeded.", "Reason": "ReservedFunctionConcurrentInvocationLimitExceeded"})
			return
		case 500:
			writeErr(w, 500, "ServiceException", "An internal error occurred")
			return
		}
	}
	rid := requestID()
	s.mu.Lock()
	s.invoked = append(s.invoked, Invocation{Function: aws.ToString(fn.Configuration.FunctionArn), Qualifier: qualifier, RequestID: rid, Payload: body, Time: time.Now()})
	s.mu.Unlock()
	if s.Logs != nil {
		if err := s.run(r.Context(), aws.ToString(fn.Configuration.FunctionName), rid, body); err != nil {
			writeErr(w, 500, "ServiceException", "the stand-in could not write the invocation's logs: "+err.Error())
			return
		}
	}
	w.Header().Set("x-amzn-RequestId", rid)
	w.Header().Set("X-Amz-Executed-Version", aws.ToString(fn.Configuration.Version))
	w.WriteHeader(http.StatusAccepted)
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func writeErr(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, typ, map[string]string{"Type": "User", "message": msg})
}

func writeJSON(w http.ResponseWriter, status int, typ string, body map[string]string) {
	w.Header().Set("x-amzn-ErrorType", typ)
	w.Header().Set("x-amzn-RequestId", requestID())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

func requestID() string {
	var b [16]byte
	rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// run writes the invocation's lines as Lambda's Python runtime does: its
// own stream in /aws/lambda/<function>, START, the exception and its
// Traceback when the handler raises (they name no request id: the stream
// and the START before them do), END and REPORT.
func (s *Server) run(ctx context.Context, function, rid string, payload []byte) error {
	group := "/aws/lambda/" + function
	_, err := s.Logs.CreateLogGroup(ctx, &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String(group)})
	var exists *cwltypes.ResourceAlreadyExistsException
	if err != nil && !errors.As(err, &exists) {
		return err
	}
	now := time.Now()
	stream := now.UTC().Format("2006/01/02") + "/[$LATEST]" + strings.ReplaceAll(rid, "-", "")
	if _, err := s.Logs.CreateLogStream(ctx, &cloudwatchlogs.CreateLogStreamInput{LogGroupName: aws.String(group), LogStreamName: aws.String(stream)}); err != nil {
		return err
	}
	lines := []string{"START RequestId: " + rid + " Version: $LATEST"}
	if s.Fails != nil {
		if msg := s.Fails(payload); msg != "" {
			lines = append(lines, "[ERROR] RuntimeError: "+msg+"\nTraceback (most recent call last):\n  File \"/var/task/h.py\", line 2, in handler\n    raise RuntimeError(\""+msg+"\")")
		}
	}
	lines = append(lines, "END RequestId: "+rid, "REPORT RequestId: "+rid+"\tDuration: 1.52 ms\tBilled Duration: 2 ms\tMemory Size: 128 MB\tMax Memory Used: 38 MB\t")
	var events []cwltypes.InputLogEvent
	for i, l := range lines {
		events = append(events, cwltypes.InputLogEvent{Message: aws.String(l), Timestamp: aws.Int64(now.UnixMilli() + int64(i))})
	}
	_, err = s.Logs.PutLogEvents(ctx, &cloudwatchlogs.PutLogEventsInput{LogGroupName: aws.String(group), LogStreamName: aws.String(stream), LogEvents: events})
	return err
}
