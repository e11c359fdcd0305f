package sqsapi

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// FromSDK converts a received SDK message into the SQS JSON API shape.
func FromSDK(m types.Message) sqsjson.Message {
	out := sqsjson.Message{
		MessageId:              aws.ToString(m.MessageId),
		ReceiptHandle:          aws.ToString(m.ReceiptHandle),
		MD5OfBody:              aws.ToString(m.MD5OfBody),
		Body:                   aws.ToString(m.Body),
		MD5OfMessageAttributes: aws.ToString(m.MD5OfMessageAttributes),
	}
	if len(m.Attributes) > 0 {
		out.Attributes = make(map[string]string, len(m.Attributes))
		for k, v := range m.Attributes {
			out.Attributes[k] = v
		}
	}
	if len(m.MessageAttributes) > 0 {
		out.MessageAttributes = make(map[string]sqsjson.MessageAttributeValue, len(m.MessageAttributes))
		for k, v := range m.MessageAttributes {
			out.MessageAttributes[k] = sqsjson.MessageAttributeValue{
				DataType:    aws.ToString(v.DataType),
				StringValue: v.StringValue,
				BinaryValue: v.BinaryValue,
			}
		}
	}
	return out
}

// ToSDKAttributes converts message attributes back for SendMessage(Batch),
// so a moved message keeps every attribute it had.
func ToSDKAttributes(attrs map[string]sqsjson.MessageAttributeValue) map[string]types.MessageAttributeValue {
	if len(attrs) == 0 {
		return nil
	}
	out := make(map[string]types.MessageAttributeValue, len(attrs))
	for k, v := range attrs {
		out[k] = types.MessageAttributeValue{
			DataType:    aws.String(v.DataType),
			StringValue: v.StringValue,
			BinaryValue: v.BinaryValue,
		}
	}
	return out
}
