package sqsapi

import (
	"errors"

	"github.com/mfdlq/mfdlq/awserr"
)

// ErrQueueNotFound is wrapped by every error for a queue that does not exist
// in the account and region in use.
var ErrQueueNotFound = errors.New("queue not found")

// InvalidQueueRefError is a --queue value that is neither a valid queue
// name, an SQS queue URL nor an SQS queue ARN.
type InvalidQueueRefError struct {
	Ref    string
	Reason string
}

func (e *InvalidQueueRefError) Error() string {
	return "--queue " + quote(e.Ref) + ": " + e.Reason
}

func quote(s string) string { return "\"" + s + "\"" }

// IsQueueMissing tells whether err is SQS saying the queue does not exist:
// deleted mid-run, or never there (awserr.QueueMissing).
func IsQueueMissing(err error) bool { return awserr.QueueMissing(err) }

// IsUnsupportedOrDenied tells whether err means "this call is not allowed or
// not implemented here", as opposed to a failure worth reporting
// (awserr.UnsupportedOrDenied).
func IsUnsupportedOrDenied(err error) bool { return awserr.UnsupportedOrDenied(err) }

// ErrorCode is the AWS error code of err ("AccessDenied"), or "error" when
// err carries none.
func ErrorCode(err error) string {
	if c := awserr.Code(err); c != "" {
		return c
	}
	return "error"
}
