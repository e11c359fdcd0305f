package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/rogpeppe/go-internal/testscript"
)

// canary-pair SOURCE DLQ MAXRECEIVE creates a source queue redriving to a
// DLQ, both FIFO when the names end in .fifo.
func cmdCanaryPair(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: canary-pair SOURCE DLQ MAXRECEIVE")
	}
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	ctx, s := context.Background(), seeder(ts)
	fifo := map[string]string{}
	if strings.HasSuffix(args[1], ".fifo") {
		fifo["FifoQueue"] = "true"
	}
	dlqURL, err := s.CreateQueue(ctx, args[1], fifo)
	ts.Check(err)
	arn, err := s.Attribute(ctx, dlqURL, "QueueArn")
	ts.Check(err)
	policy, _ := json.Marshal(map[string]any{"deadLetterTargetArn": arn, "maxReceiveCount": n})
	attrs := map[string]string{"RedrivePolicy": string(policy)}
	if strings.HasSuffix(args[0], ".fifo") {
		attrs["FifoQueue"] = "true"
	}
	_, err = s.CreateQueue(ctx, args[0], attrs)
	ts.Check(err)
}

// sqs-fill QUEUE N [GROUPS] sends N small JSON messages, ten to a
// SendMessageBatch, eight batches at a time; on a FIFO queue spread over
// GROUPS message groups (default 1) with their own deduplication ids.
func cmdSQSFill(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: sqs-fill QUEUE N [GROUPS]")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	groups := 1
	if len(args) > 2 {
		groups, err = strconv.Atoi(args[2])
		ts.Check(err)
	}
	ctx, s := context.Background(), seeder(ts)
	u, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	fifo := strings.HasSuffix(args[0], ".fifo")
	var wg sync.WaitGroup
	errs := make(chan error, n/10+1)
	sem := make(chan struct{}, 8)
	for start := 0; start < n; start += 10 {
		var entries []types.SendMessageBatchRequestEntry
		for i := start; i < min(start+10, n); i++ {
			e := types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i - start)), MessageBody: aws.String(fmt.Sprintf(`{"order_id":"o-%d"}`, i))}
			if fifo {
				e.MessageGroupId, e.MessageDeduplicationId = aws.String(fmt.Sprintf("g-%d", i%groups)), aws.String(strconv.Itoa(i))
			}
			entries = append(entries, e)
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out, err := s.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: u.QueueUrl, Entries: entries})
			if err == nil && len(out.Failed) > 0 {
				err = fmt.Errorf("%d failed: %s", len(out.Failed), aws.ToString(out.Failed[0].Message))
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		ts.Fatalf("sqs-fill %s: %v", args[0], err)
	}
}

// consumer QUEUE delete|fail starts a consumer that receives from QUEUE
// until the script ends: delete deletes what it receives (a fixed
// consumer), fail never does (still broken: each message comes back after
// a second's visibility, and the queue's redrive policy dead-letters it).
func cmdConsumer(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || (args[1] != "delete" && args[1] != "fail") {
		ts.Fatalf("usage: consumer QUEUE delete|fail")
	}
	s := seeder(ts)
	u, err := s.SQS.GetQueueUrl(context.Background(), getURL(args[0]))
	ts.Check(err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	ts.Defer(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			out, err := s.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: u.QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 1, WaitTimeSeconds: 1})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			for _, m := range out.Messages {
				if args[1] == "delete" {
					s.SQS.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: u.QueueUrl, ReceiptHandle: m.ReceiptHandle})
				}
			}
		}
	}()
}
