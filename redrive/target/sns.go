package target

import (
	"context"
	"encoding/base64"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// SNSTarget publishes each message to a topic again, as it was first
// published: the notification's Message, Subject and MessageAttributes when
// the message is an SNS notification (or carries one), else the body and
// its SQS message attributes (raw message delivery keeps them as such).
type SNSTarget struct {
	c        SNSAPI
	topicArn string
	fifo     bool
}

// NewSNSTarget publishes to topicArn; fifo is a FIFO topic's.
func NewSNSTarget(c SNSAPI, topicArn string, fifo bool) *SNSTarget {
	return &SNSTarget{c: c, topicArn: topicArn, fifo: fifo}
}

// Send publishes the pending messages with one PublishBatch.
func (t *SNSTarget) Send(ctx context.Context, chunk []sqsjson.Message, pending []int) (map[string]string, []types.BatchResultErrorEntry, error) {
	var failed []types.BatchResultErrorEntry
	entries := make([]snstypes.PublishBatchRequestEntry, 0, len(pending))
	for _, i := range pending {
		id := strconv.Itoa(i)
		e, err := t.entry(id, &chunk[i])
		if err != nil {
			failed = append(failed, refused(id, "InvalidMessage", err.Error(), true))
			continue
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		return map[string]string{}, failed, nil
	}
	out, err := t.c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: aws.String(t.topicArn), PublishBatchRequestEntries: entries}, noSNSRetry)
	if err != nil {
		return nil, nil, err
	}
	done := make(map[string]string, len(out.Successful))
	for _, s := range out.Successful {
		done[aws.ToString(s.Id)] = aws.ToString(s.MessageId)
	}
	for _, f := range out.Failed {
		failed = append(failed, refused(aws.ToString(f.Id), aws.ToString(f.Code), aws.ToString(f.Message), f.SenderFault))
	}
	return done, failed, nil
}

// entry is the publish of one message. On a FIFO topic the group is the
// message's own and the deduplication id derives from the DLQ MessageId,
// so a resend after a crash within SNS's five-minute window is dropped by
// SNS itself.
func (t *SNSTarget) entry(id string, m *sqsjson.Message) (snstypes.PublishBatchRequestEntry, error) {
	e := snstypes.PublishBatchRequestEntry{Id: aws.String(id), Message: aws.String(m.Body)}
	env := envelope.Detect(m)
	if o := env.Origin().SNS; o != nil {
		e.Message = aws.String(o.Message)
		if o.Subject != "" {
			e.Subject = aws.String(o.Subject)
		}
		attrs, err := snsAttributes(o.MessageAttributes)
		if err != nil {
			return e, err
		}
		e.MessageAttributes = attrs
	} else if env.Kind == envelope.KindRaw {
		e.MessageAttributes = sqsToSNSAttributes(m.MessageAttributes)
	}
	// Other envelopes (a function's DLQ, a rule target's DLQ) carry AWS's
	// error attributes, not the publisher's: they are not published. The
	// mover's provenance stamp is, in place of one the notification had.
	_, had := e.MessageAttributes[provenance.Attribute]
	if v := provenance.Of(m); v != "" && (had || len(e.MessageAttributes) < provenance.MaxAttributes) {
		if e.MessageAttributes == nil {
			e.MessageAttributes = map[string]snstypes.MessageAttributeValue{}
		}
		e.MessageAttributes[provenance.Attribute] = snstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	if t.fifo {
		group := m.Attributes[sqsjson.AttrMessageGroupId]
		if group == "" {
			group = "mfdlq-redrive"
		}
		e.MessageGroupId = aws.String(group)
		e.MessageDeduplicationId = aws.String("mfdlq-" + m.MessageId)
	}
	return e, nil
}

// Carried is what a publish of m carries, for the mover's provenance
// stamp: the notification's attributes and its Message, or the body and
// its SQS attributes, or (another envelope) the body alone.
func (t *SNSTarget) Carried(m *sqsjson.Message) (map[string]sqsjson.MessageAttributeValue, int) {
	env := envelope.Detect(m)
	if o := env.Origin().SNS; o != nil {
		attrs := make(map[string]sqsjson.MessageAttributeValue, len(o.MessageAttributes))
		for k, a := range o.MessageAttributes {
			v := a.Value
			attrs[k] = sqsjson.MessageAttributeValue{DataType: a.Type, StringValue: &v}
		}
		return attrs, len(o.Message) + len(o.Subject)
	}
	if env.Kind == envelope.KindRaw {
		return m.MessageAttributes, len(m.Body)
	}
	return nil, len(m.Body)
}

// snsAttributes turns a notification's attributes back into Publish's.
func snsAttributes(in map[string]envelope.SNSAttribute) (map[string]snstypes.MessageAttributeValue, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]snstypes.MessageAttributeValue, len(in))
	for k, a := range in {
		v := snstypes.MessageAttributeValue{DataType: aws.String(a.Type)}
		if a.Type == "Binary" {
			b, err := base64.StdEncoding.DecodeString(a.Value)
			if err != nil {
				return nil, &attrError{name: k, err: err}
			}
			v.BinaryValue = b
		} else {
			v.StringValue = aws.String(a.Value)
		}
		out[k] = v
	}
	return out, nil
}

func sqsToSNSAttributes(in map[string]sqsjson.MessageAttributeValue) map[string]snstypes.MessageAttributeValue {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]snstypes.MessageAttributeValue, len(in))
	for k, a := range in {
		out[k] = snstypes.MessageAttributeValue{DataType: aws.String(a.DataType), StringValue: a.StringValue, BinaryValue: a.BinaryValue}
	}
	return out
}

type attrError struct {
	name string
	err  error
}

func (e *attrError) Error() string {
	return "message attribute " + strconv.Quote(e.name) + ": " + e.err.Error()
}

// noSNSRetry makes one SDK call one attempt, as retry.NoSDK does for SQS.
func noSNSRetry(o *sns.Options) { o.RetryMaxAttempts = 1 }
