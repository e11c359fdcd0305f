package awserr

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Code is the AWS error code of err ("AccessDenied"), or "" when no
// smithy.APIError is in its chain.
func Code(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// Denied tells credentials that are missing, wrong or expired, or a
// permission that is missing: the fix is the operator's profile or role.
func Denied(err error) bool { return deniedCodes[Code(err)] }

// NoCredentials tells the SDK failing to find or load credentials
// (no profile, an expired SSO session, no instance role), which it reports
// as a plain wrapped error before any call, with no AWS error code: the
// fix is the operator's profile, as for Denied.
func NoCredentials(err error) bool {
	s := err.Error()
	return strings.Contains(s, "failed to retrieve credentials") ||
		strings.Contains(s, "failed to refresh cached credentials") ||
		strings.Contains(s, "no EC2 IMDS role found") ||
		strings.Contains(s, "failed to get shared config profile") ||
		strings.Contains(s, "SharedConfigProfileNotExist")
}

// Unsupported tells an operation the endpoint does not implement.
func Unsupported(err error) bool { return unsupportedCodes[Code(err)] }

// UnsupportedOrDenied tells "this call is not allowed or not implemented
// here": a caller that can do without the answer degrades instead of
// failing.
func UnsupportedOrDenied(err error) bool { return Unsupported(err) || Denied(err) }

// Throttled tells the service saying slow down: a throttling code, or an
// HTTP 429 whatever its code.
func Throttled(err error) bool {
	return throttledCodes[Code(err)] || status(err) == 429
}

// ServerFault tells the service failing on its side: a 5xx, a server-fault
// code, or an error the service marks as its fault.
func ServerFault(err error) bool {
	if status(err) >= 500 {
		return true
	}
	var api smithy.APIError
	return errors.As(err, &api) && (serverCodes[api.ErrorCode()] || api.ErrorFault() == smithy.FaultServer)
}

// ThrottledCode tells whether code, an entry's error code in a batch
// answer (SendMessageBatch's Failed[].Code, PutEvents' Entries[].ErrorCode),
// says slow down.
func ThrottledCode(code string) bool { return throttledCodes[code] }

// RetryableCode tells whether code, an entry's error code in a batch
// answer, is worth another attempt: throttling or a server fault.
func RetryableCode(code string) bool { return throttledCodes[code] || serverCodes[code] }

// NotInFlightCode tells whether code, an entry's error code in a
// ChangeMessageVisibilityBatch answer, says the message is visible
// already: a release of it needs no retry.
func NotInFlightCode(code string) bool {
	return code == "AWS.SimpleQueueService.MessageNotInflight" || code == "MessageNotInflight"
}

// NotFound tells a resource (queue, topic, bus, function, log group,
// bucket, object) that does not exist.
func NotFound(err error) bool {
	c := Code(err)
	return notFoundCodes[c] || queueMissingCodes[c]
}

// QueueMissing tells SQS saying the queue does not exist: deleted mid-run,
// or never there.
func QueueMissing(err error) bool { return queueMissingCodes[Code(err)] }

// transportFragments are what a broken connection says when the SDK hands
// it over as text (the request may or may not have reached AWS).
var transportFragments = []string{"connection reset", "connection refused", "EOF", "broken pipe", "closed network connection", "deserialization failed"}

// Retryable tells whether err is worth another attempt: throttling, a
// server fault, or a connection that broke (the request may or may not
// have reached AWS; repeating a receive, send or delete is safe for
// at-least-once). Any other 4xx is final, and so is an ended context.
func Retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	// A status below 400 with an error is a transport failure after the
	// answer began (a body cut off): judged like a broken connection below.
	if s := status(err); s >= 400 {
		return s >= 500 || s == 429 || throttledCodes[Code(err)] || serverCodes[Code(err)]
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		return Throttled(err) || ServerFault(err)
	}
	var ne net.Error
	var retryable interface{ RetryableError() bool }
	if errors.As(err, &ne) || (errors.As(err, &retryable) && retryable.RetryableError()) {
		return true
	}
	s := err.Error()
	for _, frag := range transportFragments {
		if strings.Contains(s, frag) {
			return true
		}
	}
	return false
}

// status is the HTTP status of the response err came with, 0 without one.
func status(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.Response != nil {
		return re.Response.StatusCode
	}
	return 0
}
