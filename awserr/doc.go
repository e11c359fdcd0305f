// Package awserr is mfdlq's one vocabulary for what an AWS error means to
// the caller, whatever the service (SQS, STS, S3, Lambda, CloudWatch,
// CloudWatch Logs, CloudTrail, SNS, EventBridge) and whatever its protocol
// (query, JSON, REST-XML) spells it:
//
//   - Denied: who you are or what you may do (credentials, permission);
//     cmd maps it to exit 4, as NoCredentials: the SDK found none to sign
//     with (a plain error, no code).
//   - Unsupported: the call is not implemented here (an older API, an
//     emulator); a caller that can do without the answer degrades.
//   - Throttled: slow down; the call is worth repeating after a wait.
//   - Retryable: throttled, a server fault or a broken connection: another
//     attempt may succeed (a 4xx other than throttling is final).
//   - NotFound: the resource named does not exist; QueueMissing is its
//     SQS queue subset (cmd maps it to exit 5).
//
// Each is a predicate on one list of codes in codes.go, read from the
// smithy.APIError anywhere in an error's chain (errors.As), so a wrapped
// error ("redrive orders-dlq: send batch: %w") is judged as its cause.
// Every package asks these predicates; none keeps a list of its own.
package awserr
