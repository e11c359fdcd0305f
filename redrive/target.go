package redrive

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Target is a destination that is not an SQS queue: a Lambda function, an
// SNS topic or an EventBridge bus — where SQS's own redrive cannot go. The
// mover calls Send instead of SendMessageBatch; everything else (receive,
// rate, journal, delete only after the target accepted, retries, canary,
// circuit breaker) is the same engine.
type Target interface {
	// Send delivers the messages of chunk at the indexes pending (at most
	// ten). It returns what the target accepted, by entry id (the index as
	// a decimal string), with the id the target gave it (SNS MessageId,
	// EventBridge EventId, Lambda RequestId), and what it refused: a
	// SenderFault entry is final for that message, any other is retried. A
	// non-nil error fails every pending entry: retried when Retryable,
	// else the run stops (no permission, no such function).
	Send(ctx context.Context, chunk []sqsjson.Message, pending []int) (map[string]string, []types.BatchResultErrorEntry, error)
}

// PayloadReturned tells whether m carries the payload of a message this
// journal sent to a target, and reached the DLQ after that send: the
// target's consumer failed it again. A message already in the DLQ before
// the send with the same payload (a duplicate) is not a return. Without a
// SentTimestamp it counts as returned: a breaker that trips too early is
// safer than one that never does.
func (s *State) PayloadReturned(m *sqsjson.Message) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.l.payloads) == 0 {
		return false // not a target move: no hashing on the SQS path
	}
	at, ok := s.l.payloadSent(envelope.PayloadSHA256(m), s.attempt)
	return ok && envelope.ArrivedAfter(m, at)
}

// refused is a failed entry of a target call: final (sender) when
// sender is true, retried otherwise.
func refused(id, code, msg string, sender bool) types.BatchResultErrorEntry {
	return types.BatchResultErrorEntry{Id: aws.String(id), Code: aws.String(code), Message: aws.String(msg), SenderFault: sender}
}

// errorCode is an AWS error's code, or "Error" for one without.
func errorCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return "Error"
}
