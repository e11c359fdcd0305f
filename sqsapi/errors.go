package sqsapi

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
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

// isQueueMissing recognises SQS's "no such queue" across its protocols: the
// JSON protocol's QueueDoesNotExist and the query protocol's legacy code.
func isQueueMissing(err error) bool {
	var qdne *types.QueueDoesNotExist
	if errors.As(err, &qdne) {
		return true
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", "NonExistentQueue":
			return true
		}
	}
	return false
}

// IsUnsupportedOrDenied tells whether err means "this call is not allowed or
// not implemented here", as opposed to a failure worth reporting.
func IsUnsupportedOrDenied(err error) bool {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return false
	}
	switch api.ErrorCode() {
	case "AccessDenied", "AccessDeniedException", "UnsupportedOperation",
		"InvalidAction", "NotImplemented", "UnknownOperationException", "InvalidClientTokenId":
		return true
	}
	return false
}

// ErrorCode is the AWS error code of err ("AccessDenied"), or "error" when
// err carries none.
func ErrorCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return "error"
}

// IsQueueMissing tells whether err means the queue does not exist (any
// protocol's code for it).
func IsQueueMissing(err error) bool { return isQueueMissing(err) }
