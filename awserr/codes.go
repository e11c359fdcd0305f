package awserr

// The lists, by what the code means. A code is in one list only (the
// predicates' test checks it). Sources: each service's API reference,
// "Common Errors" and the operations' Errors sections.

// deniedCodes: credentials missing, wrong or expired, or a permission
// missing. Common Errors (every service): AccessDeniedException,
// IncompleteSignature, InvalidClientTokenId, MissingAuthenticationToken,
// NotAuthorized, OptInRequired, RequestExpired. STS and SQS's query
// protocol: AccessDenied, ExpiredToken; JSON services: ExpiredTokenException,
// UnrecognizedClientException, InvalidSignatureException. S3: AccessDenied,
// InvalidAccessKeyId, SignatureDoesNotMatch, InvalidSecurity, ExpiredToken,
// AllAccessDisabled. SNS: AuthorizationError. EC2-style: AuthFailure,
// UnauthorizedOperation. Organizations/Lambda: OperationNotPermittedException.
var deniedCodes = set(
	"AccessDenied", "AccessDeniedException", "AuthFailure", "AuthorizationError",
	"AllAccessDisabled", "ExpiredToken", "ExpiredTokenException", "IncompleteSignature",
	"InvalidAccessKeyId", "InvalidClientTokenId", "InvalidSecurity", "InvalidSignatureException",
	"MissingAuthenticationToken", "NotAuthorized", "OperationNotPermittedException",
	"OptInRequired", "RequestExpired", "SignatureDoesNotMatch", "UnauthorizedOperation",
	"UnrecognizedClientException",
)

// unsupportedCodes: the operation is not there (an older endpoint, or an
// emulator that does not serve it).
var unsupportedCodes = set(
	"InvalidAction", "NotImplemented", "UnknownOperationException", "UnsupportedOperation",
)

// throttledCodes: slow down. Common Errors: ThrottlingException; the query
// protocol (CloudWatch, SNS's Throttled, SQS's RequestThrottled and its
// legacy AWS.SimpleQueueService.RequestThrottled, KmsThrottled); Lambda's
// TooManyRequestsException; S3's SlowDown; EC2-style RequestLimitExceeded.
var throttledCodes = set(
	"AWS.SimpleQueueService.RequestThrottled", "KmsThrottled", "RequestLimitExceeded",
	"RequestThrottled", "SlowDown", "Throttled", "Throttling", "ThrottlingException",
	"TooManyRequestsException",
)

// serverCodes: the service failed (5xx in the references): InternalFailure
// and ServiceUnavailable (Common Errors), InternalError (S3, SNS),
// InternalException (EventBridge's PutEvents entries, documented as
// retryable).
var serverCodes = set("InternalError", "InternalException", "InternalFailure", "ServiceUnavailable")

// queueMissingCodes: SQS's "no such queue", in the JSON protocol
// (QueueDoesNotExist) and the query protocol's legacy spellings.
var queueMissingCodes = set("AWS.SimpleQueueService.NonExistentQueue", "NonExistentQueue", "QueueDoesNotExist")

// notFoundCodes: any other resource that does not exist. Lambda, CloudWatch
// Logs, EventBridge: ResourceNotFoundException; SNS: NotFound (query),
// NotFoundException (JSON); CloudWatch: ResourceNotFound; S3: NoSuchBucket,
// NoSuchKey.
var notFoundCodes = set("NoSuchBucket", "NoSuchKey", "NotFound", "NotFoundException", "ResourceNotFound", "ResourceNotFoundException")

func set(codes ...string) map[string]bool {
	m := make(map[string]bool, len(codes))
	for _, c := range codes {
		m[c] = true
	}
	return m
}
