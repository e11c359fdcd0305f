package localaws

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Seeder sets up and reads back queues on the local AWS with the plain SDK,
// independently of mfdlq's own SQS layer, so tests check mfdlq against
// what the server really holds.
type Seeder struct {
	SQS *sqs.Client
}

// NewSeeder returns a Seeder over cfg.
func NewSeeder(cfg aws.Config) *Seeder { return &Seeder{SQS: sqs.NewFromConfig(cfg)} }

// CreateQueue creates name with attrs and returns its URL.
func (s *Seeder) CreateQueue(ctx context.Context, name string, attrs map[string]string) (string, error) {
	out, err := s.SQS.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		return "", fmt.Errorf("create queue %s: %w", name, err)
	}
	return aws.ToString(out.QueueUrl), nil
}

// CreatePair creates a DLQ and a source queue whose redrive policy sends
// messages there after maxReceive receives. It returns both URLs.
func (s *Seeder) CreatePair(ctx context.Context, source, dlq string, maxReceive int) (srcURL, dlqURL string, err error) {
	dlqURL, err = s.CreateQueue(ctx, dlq, nil)
	if err != nil {
		return "", "", err
	}
	arn, err := s.Attribute(ctx, dlqURL, "QueueArn")
	if err != nil {
		return "", "", err
	}
	policy, _ := json.Marshal(struct {
		DeadLetterTargetArn string `json:"deadLetterTargetArn"`
		MaxReceiveCount     int    `json:"maxReceiveCount"`
	}{arn, maxReceive})
	srcURL, err = s.CreateQueue(ctx, source, map[string]string{"RedrivePolicy": string(policy)})
	return srcURL, dlqURL, err
}

// Attribute reads one queue attribute.
func (s *Seeder) Attribute(ctx context.Context, url, name string) (string, error) {
	out, err := s.SQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll},
	})
	if err != nil {
		return "", err
	}
	return out.Attributes[name], nil
}

// Depth returns visible and in-flight counts.
func (s *Seeder) Depth(ctx context.Context, url string) (visible, inFlight int, err error) {
	out, err := s.SQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll},
	})
	if err != nil {
		return 0, 0, err
	}
	visible, _ = strconv.Atoi(out.Attributes["ApproximateNumberOfMessages"])
	inFlight, _ = strconv.Atoi(out.Attributes["ApproximateNumberOfMessagesNotVisible"])
	return visible, inFlight, nil
}

// Send sends bodies in batches of ten, each with attrs (string attributes).
func (s *Seeder) Send(ctx context.Context, url string, bodies []string, attrs map[string]string) error {
	_, err := s.SendIDs(ctx, url, bodies, attrs)
	return err
}

// SendIDs is Send that returns the MessageIds SQS gave the bodies, in order.
func (s *Seeder) SendIDs(ctx context.Context, url string, bodies []string, attrs map[string]string) ([]string, error) {
	ids := make([]string, 0, len(bodies))
	for start := 0; start < len(bodies); start += 10 {
		end := min(start+10, len(bodies))
		var entries []types.SendMessageBatchRequestEntry
		for i := start; i < end; i++ {
			e := types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(bodies[i])}
			if len(attrs) > 0 {
				e.MessageAttributes = map[string]types.MessageAttributeValue{}
				for k, v := range attrs {
					e.MessageAttributes[k] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
				}
			}
			entries = append(entries, e)
		}
		out, err := s.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
		if err != nil {
			return nil, fmt.Errorf("send batch: %w", err)
		}
		if len(out.Failed) > 0 {
			return nil, fmt.Errorf("send batch: %d failed: %s", len(out.Failed), aws.ToString(out.Failed[0].Message))
		}
		byID := make(map[string]string, len(out.Successful))
		for _, ok := range out.Successful {
			byID[aws.ToString(ok.Id)] = aws.ToString(ok.MessageId)
		}
		for _, e := range entries {
			ids = append(ids, byID[aws.ToString(e.Id)])
		}
	}
	return ids, nil
}

// Drain receives and deletes every message of url until a long poll comes
// back empty twice, and returns them with all attributes.
func (s *Seeder) Drain(ctx context.Context, url string) ([]types.Message, error) {
	var all []types.Message
	empty := 0
	for empty < 2 {
		out, err := s.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 30,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
			MessageAttributeNames:       []string{"All"},
		})
		if err != nil {
			return all, err
		}
		if len(out.Messages) == 0 {
			empty++
			continue
		}
		empty = 0
		var del []types.DeleteMessageBatchRequestEntry
		for i, m := range out.Messages {
			del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
		}
		if _, err := s.SQS.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: del}); err != nil {
			return all, err
		}
		all = append(all, out.Messages...)
	}
	return all, nil
}
