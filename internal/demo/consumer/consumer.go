// Package consumer is the demo's fixed consumer: it reads a queue the way a
// Lambda event source mapping would, processes the messages whose version it
// understands and deletes them. Messages it does not understand are left to
// fail again, so a wrong fix shows up in the DLQ as it would in production.
package consumer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Consumer processes messages of versions up to AcceptMax.
type Consumer struct {
	SQS       *sqs.Client
	QueueURL  string
	AcceptMax int
	Log       io.Writer
}

// Run consumes until ctx ends and returns how many messages it processed.
func (c *Consumer) Run(ctx context.Context) (int, error) {
	done := 0
	for ctx.Err() == nil {
		out, err := c.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(c.QueueURL), MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
		})
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return done, err
		}
		var del []types.DeleteMessageBatchRequestEntry
		for i, m := range out.Messages {
			if !c.understands(aws.ToString(m.Body)) {
				fmt.Fprintf(c.Log, "consumer: cannot process %s: unsupported version\n", aws.ToString(m.MessageId))
				continue
			}
			del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
		}
		if len(del) == 0 {
			continue
		}
		if _, err := c.SQS.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(c.QueueURL), Entries: del}); err != nil {
			if ctx.Err() != nil {
				break
			}
			return done, err
		}
		done += len(del)
	}
	return done, nil
}

func (c *Consumer) understands(body string) bool {
	var m struct {
		Version int `json:"version"`
	}
	if json.Unmarshal([]byte(body), &m) != nil {
		return false
	}
	return m.Version >= 1 && m.Version <= c.AcceptMax
}
