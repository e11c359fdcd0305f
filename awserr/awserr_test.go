package awserr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	logstypes "github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// sdkError wraps api as the SDK returns it from an operation: an
// OperationError around a ResponseError with the HTTP status, and then
// mfdlq's own context on top.
func sdkError(service string, statusCode int, api error) error {
	op := &smithy.OperationError{ServiceID: service, OperationName: "Call", Err: &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: statusCode}}, Err: api},
		RequestID:     "req-1",
	}}
	return fmt.Errorf("redrive orders-dlq: read: %w", op)
}

func code(c string) error { return &smithy.GenericAPIError{Code: c, Message: "m"} }

type verdict struct{ denied, unsupported, throttled, retryable, notFound, queueMissing bool }

func judge(err error) verdict {
	return verdict{Denied(err), Unsupported(err), Throttled(err), Retryable(err), NotFound(err), QueueMissing(err)}
}

// TestPredicates judges the codes the services document, as the SDK hands
// them over (typed, with the HTTP status, wrapped) and bare.
func TestPredicates(t *testing.T) {
	denied := verdict{denied: true}
	throttled := verdict{throttled: true, retryable: true}
	notFound := verdict{notFound: true}
	tests := []struct {
		name string
		err  error
		want verdict
	}{
		// Credentials and permission, across services and protocols.
		{"SQS JSON AccessDeniedException", sdkError("SQS", 400, code("AccessDeniedException")), denied},
		{"SQS query AccessDenied", sdkError("SQS", 403, code("AccessDenied")), denied},
		{"SQS InvalidClientTokenId", sdkError("SQS", 403, code("InvalidClientTokenId")), denied},
		{"STS ExpiredTokenException (typed)", sdkError("STS", 400, &ststypes.ExpiredTokenException{}), denied},
		{"STS AccessDenied on AssumeRole", sdkError("STS", 403, code("AccessDenied")), denied},
		{"S3 AccessDenied", sdkError("S3", 403, code("AccessDenied")), denied},
		{"S3 InvalidAccessKeyId", sdkError("S3", 403, code("InvalidAccessKeyId")), denied},
		{"S3 SignatureDoesNotMatch", sdkError("S3", 403, code("SignatureDoesNotMatch")), denied},
		{"S3 ExpiredToken", sdkError("S3", 400, code("ExpiredToken")), denied},
		{"Lambda AccessDeniedException", sdkError("Lambda", 403, code("AccessDeniedException")), denied},
		{"Lambda UnrecognizedClientException", sdkError("Lambda", 403, code("UnrecognizedClientException")), denied},
		{"CloudWatch query AccessDenied", sdkError("CloudWatch", 403, code("AccessDenied")), denied},
		{"SNS AuthorizationError", sdkError("SNS", 403, code("AuthorizationError")), denied},
		{"common MissingAuthenticationToken", code("MissingAuthenticationToken"), denied},
		{"common NotAuthorized", code("NotAuthorized"), denied},
		{"common RequestExpired", code("RequestExpired"), denied},

		// Not implemented here.
		{"UnsupportedOperation", sdkError("SQS", 400, code("UnsupportedOperation")), verdict{unsupported: true}},
		{"common InvalidAction", code("InvalidAction"), verdict{unsupported: true}},

		// Slow down: retried.
		{"common ThrottlingException", sdkError("CloudTrail", 400, code("ThrottlingException")), throttled},
		{"CloudWatch query Throttling", sdkError("CloudWatch", 400, code("Throttling")), throttled},
		{"SQS RequestThrottled", sdkError("SQS", 403, code("RequestThrottled")), throttled},
		{"SQS KmsThrottled", sdkError("SQS", 400, code("KmsThrottled")), throttled},
		{"SNS Throttled", sdkError("SNS", 400, code("Throttled")), throttled},
		{"Lambda TooManyRequestsException (typed)", sdkError("Lambda", 429, &lambdatypes.TooManyRequestsException{}), throttled},
		{"S3 SlowDown", sdkError("S3", 503, code("SlowDown")), throttled},
		{"a 429 without a known code", sdkError("SQS", 429, code("Whatever")), throttled},
		{"bare ThrottlingException", code("ThrottlingException"), throttled},

		// Server faults: retried, not throttling.
		{"common InternalFailure 500", sdkError("SQS", 500, code("InternalFailure")), verdict{retryable: true}},
		{"common ServiceUnavailable 503", sdkError("STS", 503, code("ServiceUnavailable")), verdict{retryable: true}},
		{"Lambda ServiceException 500 (typed)", sdkError("Lambda", 500, &lambdatypes.ServiceException{}), verdict{retryable: true}},
		{"S3 InternalError bare", code("InternalError"), verdict{retryable: true}},
		{"a server-fault code", &smithy.GenericAPIError{Code: "Odd", Fault: smithy.FaultServer}, verdict{retryable: true}},

		// Missing resources.
		{"SQS QueueDoesNotExist (typed)", sdkError("SQS", 400, &sqstypes.QueueDoesNotExist{}), verdict{notFound: true, queueMissing: true}},
		{"SQS query NonExistentQueue", sdkError("SQS", 400, code("AWS.SimpleQueueService.NonExistentQueue")), verdict{notFound: true, queueMissing: true}},
		{"Lambda ResourceNotFoundException (typed)", sdkError("Lambda", 404, &lambdatypes.ResourceNotFoundException{}), notFound},
		{"Logs ResourceNotFoundException (typed)", sdkError("CloudWatch Logs", 400, &logstypes.ResourceNotFoundException{}), notFound},
		{"CloudWatch ResourceNotFound (typed)", sdkError("CloudWatch", 404, &cwtypes.ResourceNotFound{}), notFound},
		{"S3 NoSuchBucket (typed)", sdkError("S3", 404, &s3types.NoSuchBucket{}), notFound},
		{"S3 NoSuchKey (typed)", sdkError("S3", 404, &s3types.NoSuchKey{}), notFound},
		{"SNS NotFound", sdkError("SNS", 404, code("NotFound")), notFound},

		// Final 4xx, and errors that are no AWS answer at all.
		{"InvalidParameterValue is final", sdkError("SQS", 400, code("InvalidParameterValue")), verdict{}},
		{"a 404 without a code", sdkError("S3", 404, code("")), verdict{}},
		{"the text of a code is not the code", errors.New("AccessDenied ThrottlingException QueueDoesNotExist"), verdict{}},
		{"nil", nil, verdict{}},
		{"cancelled", fmt.Errorf("receive: %w", context.Canceled), verdict{}},
		{"deadline", context.DeadlineExceeded, verdict{}},
		{"a net.Error", fmt.Errorf("send: %w", &net.OpError{Op: "dial", Err: errors.New("refused")}), verdict{retryable: true}},
		{"closed connection on a 200", sdkError("SQS", 200, errors.New("read tcp: use of closed network connection")), verdict{retryable: true}},
		{"an unexpected EOF", fmt.Errorf("decode: %w", io.ErrUnexpectedEOF), verdict{retryable: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := judge(tt.err); got != tt.want {
				t.Errorf("%v: got %+v, want %+v", tt.err, got, tt.want)
			}
		})
	}
}

// TestCode reads the code through every wrapping, and "" without one.
func TestCode(t *testing.T) {
	if got := Code(sdkError("SQS", 400, &sqstypes.QueueDoesNotExist{})); got != "QueueDoesNotExist" {
		t.Errorf("Code = %q", got)
	}
	if got := Code(errors.New("QueueDoesNotExist")); got != "" {
		t.Errorf("Code of plain text = %q, want empty", got)
	}
}

// TestEntryCodes judges a batch answer's entry codes: EventBridge's
// PutEvents documents InternalFailure, ThrottlingException and
// InternalException as retryable; SQS's SendMessageBatch entries carry
// the same codes as its errors.
func TestEntryCodes(t *testing.T) {
	for _, c := range []string{"InternalFailure", "ThrottlingException", "InternalException", "RequestThrottled", "ServiceUnavailable"} {
		if !RetryableCode(c) {
			t.Errorf("RetryableCode(%q) = false", c)
		}
	}
	for _, c := range []string{"InvalidParameterValue", "AccessDeniedException", "", "MalformedDetail"} {
		if RetryableCode(c) || ThrottledCode(c) {
			t.Errorf("%q judged retryable", c)
		}
	}
	if !ThrottledCode("ThrottlingException") || ThrottledCode("InternalFailure") {
		t.Error("ThrottledCode mixes throttling and faults")
	}
}

// TestEachCodeHasOneMeaning keeps the lists apart: a code in two lists
// would be judged two ways.
func TestEachCodeHasOneMeaning(t *testing.T) {
	lists := map[string]map[string]bool{"denied": deniedCodes, "unsupported": unsupportedCodes, "throttled": throttledCodes,
		"server": serverCodes, "queue missing": queueMissingCodes, "not found": notFoundCodes}
	seen := map[string]string{}
	for name, l := range lists {
		for c := range l {
			if other, ok := seen[c]; ok {
				t.Errorf("%s is in both %s and %s", c, other, name)
			}
			seen[c] = name
		}
	}
	if len(seen) < 40 {
		t.Errorf("only %d codes in the lists", len(seen))
	}
}

// TestNoCredentials: the SDK's "no credentials" errors carry no code, so
// they are told by their text, wrapped or not; an API error is not one.
func TestNoCredentials(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("resolve queue: %w", errors.New("get identity: get credentials: failed to refresh cached credentials, no EC2 IMDS role found")), true},
		{errors.New("failed to get shared config profile, oncall"), true},
		{errors.New("operation error SQS: GetQueueUrl, failed to retrieve credentials"), true},
		{sdkError("SQS", 403, code("AccessDenied")), false},
		{errors.New("connection refused"), false},
	} {
		if got := NoCredentials(c.err); got != c.want {
			t.Errorf("NoCredentials(%q) = %v, want %v", c.err, got, c.want)
		}
	}
}
