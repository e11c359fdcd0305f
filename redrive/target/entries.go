// Package target sends a DLQ's messages where SQS's own redrive cannot go:
// a Lambda function (lambda:), an SNS topic (sns:) or an EventBridge bus
// (events:), each a Send of up to ten that the mover calls in place of
// SendMessageBatch. It also reads them before a move (ReadTopic, ReadBus,
// ReadTargetFunction) and detects a destination loop: a topic, bus or
// file whose messages would come straight back to the DLQ (TopicLoop,
// BusLoop, FileLoop). It never imports redrive.
package target

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

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
