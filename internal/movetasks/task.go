package movetasks

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"golang.org/x/time/rate"
)

type task struct {
	mu                   sync.Mutex
	handle, source, dest string
	destGiven            bool
	only                 string // the DLQ's one source queue's URL, if it has one
	rate                 int32
	started              time.Time
	status, failure      string
	moved, toMove        int64
	cancel               context.CancelFunc
}

type taskView struct {
	ApproximateNumberOfMessagesMoved  int64   `json:"ApproximateNumberOfMessagesMoved"`
	ApproximateNumberOfMessagesToMove *int64  `json:"ApproximateNumberOfMessagesToMove,omitempty"`
	DestinationArn                    *string `json:"DestinationArn,omitempty"`
	FailureReason                     *string `json:"FailureReason,omitempty"`
	MaxNumberOfMessagesPerSecond      *int32  `json:"MaxNumberOfMessagesPerSecond,omitempty"`
	SourceArn                         string  `json:"SourceArn"`
	StartedTimestamp                  int64   `json:"StartedTimestamp"`
	Status                            string  `json:"Status"`
	TaskHandle                        *string `json:"TaskHandle,omitempty"`
}

func (t *task) view() taskView {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := taskView{ApproximateNumberOfMessagesMoved: t.moved, SourceArn: t.source, StartedTimestamp: t.started.UnixMilli(), Status: t.status}
	toMove := t.toMove
	v.ApproximateNumberOfMessagesToMove = &toMove
	if t.destGiven {
		v.DestinationArn = aws.String(t.dest)
	}
	if t.rate > 0 {
		v.MaxNumberOfMessagesPerSecond = aws.Int32(t.rate)
	}
	if t.failure != "" {
		v.FailureReason = aws.String(t.failure)
	}
	if t.status == "RUNNING" {
		v.TaskHandle = aws.String(t.handle)
	}
	return v
}

func (s *Server) start(body []byte) (any, *apiError) {
	var in struct {
		SourceArn                    string
		DestinationArn               string
		MaxNumberOfMessagesPerSecond *int32
	}
	if err := json.Unmarshal(body, &in); err != nil || in.SourceArn == "" {
		return nil, errorf("InvalidParameterValue", "SourceArn is required")
	}
	if r := in.MaxNumberOfMessagesPerSecond; r != nil && (*r < 1 || *r > 500) {
		return nil, errorf("InvalidParameterValue", "MaxNumberOfMessagesPerSecond must be between 1 and 500")
	}
	ctx := context.Background()
	srcURL, err := s.urlOf(ctx, in.SourceArn)
	if err != nil {
		return nil, errorf("ResourceNotFoundException", "The resource that you specified for the SourceArn parameter doesn't exist.")
	}
	sources, err := s.sqs.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(srcURL)})
	if err != nil || len(sources.QueueUrls) == 0 {
		return nil, errorf("UnsupportedOperation", "Source queue must be configured as a Dead Letter Queue.")
	}
	// No DestinationArn: SQS returns each message to the queue it was
	// moved from (its DeadLetterQueueSourceArn), resolved per message.
	destURL, only := "", ""
	if len(sources.QueueUrls) == 1 {
		only = sources.QueueUrls[0]
	}
	if in.DestinationArn != "" {
		if destURL, err = s.urlOf(ctx, in.DestinationArn); err != nil {
			return nil, errorf("ResourceNotFoundException", "The resource that you specified for the DestinationArn parameter doesn't exist.")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tasks[in.SourceArn] {
		if st := t.view().Status; st == "RUNNING" || st == "CANCELLING" {
			return nil, errorf("UnsupportedOperation", "There is already a task running. Only one active task is allowed for a source queue arn at a given time.")
		}
	}
	s.seq++
	t := &task{handle: fmt.Sprintf("task-%d-%s", s.seq, strings.ReplaceAll(in.SourceArn, ":", "-")), source: in.SourceArn,
		dest: in.DestinationArn, destGiven: in.DestinationArn != "", started: time.Now(), status: "RUNNING"}
	if in.MaxNumberOfMessagesPerSecond != nil {
		t.rate = *in.MaxNumberOfMessagesPerSecond
	}
	attrs, err := s.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(srcURL), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages}})
	if err == nil {
		t.toMove, _ = strconv.ParseInt(attrs.Attributes["ApproximateNumberOfMessages"], 10, 64)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	s.tasks[in.SourceArn] = append(s.tasks[in.SourceArn], t)
	t.only = only
	go s.move(runCtx, t, srcURL, destURL, s.FailAfter)
	s.FailAfter = -1
	return map[string]string{"TaskHandle": t.handle}, nil
}

// move carries a task out: receive, send, delete, at the task's rate.
func (s *Server) move(ctx context.Context, t *task, srcURL, destURL string, failAfter int) {
	lim := rate.NewLimiter(rate.Inf, 10)
	if t.rate > 0 {
		lim = rate.NewLimiter(rate.Limit(t.rate), 10)
	}
	finish := func(status, failure string) {
		t.mu.Lock()
		t.status, t.failure = status, failure
		t.mu.Unlock()
	}
	for {
		t.mu.Lock()
		done, moved := t.moved >= t.toMove, t.moved
		t.mu.Unlock()
		switch {
		case ctx.Err() != nil:
			finish("CANCELLED", "")
			return
		case failAfter >= 0 && moved >= int64(failAfter):
			finish("FAILED", "AWS.SimpleQueueService.NonExistentQueue: the destination queue was deleted")
			return
		case done:
			finish("COMPLETED", "")
			return
		}
		if err := s.moveBatch(ctx, t, lim, srcURL, destURL); err != nil && ctx.Err() == nil {
			finish("FAILED", err.Error())
			return
		}
	}
}

func (s *Server) moveBatch(ctx context.Context, t *task, lim *rate.Limiter, srcURL, destURL string) error {
	if err := lim.WaitN(ctx, 10); err != nil {
		return nil
	}
	out, err := s.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(srcURL), MaxNumberOfMessages: 10,
		WaitTimeSeconds: 1, VisibilityTimeout: 30, MessageAttributeNames: []string{"All"},
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameDeadLetterQueueSourceArn}})
	if err != nil || len(out.Messages) == 0 {
		return err
	}
	bg := context.WithoutCancel(ctx)
	for _, m := range out.Messages {
		to, err := s.destinationOf(bg, t, m, destURL)
		if err != nil {
			return err
		}
		if _, err := s.sqs.SendMessage(bg, &sqs.SendMessageInput{QueueUrl: aws.String(to), MessageBody: m.Body, MessageAttributes: m.MessageAttributes}); err != nil {
			return err
		}
		if _, err := s.sqs.DeleteMessage(bg, &sqs.DeleteMessageInput{QueueUrl: aws.String(srcURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
			return err
		}
		t.mu.Lock()
		t.moved++
		t.mu.Unlock()
	}
	return nil
}

// destinationOf is where a message goes: the task's destination, or the
// queue the message was moved from. AWS does not document what a task
// without a destination does with a message that carries no source (one
// sent to the DLQ directly, as most tests seed): the stand-in sends it to
// the DLQ's source queue when there is exactly one, and otherwise fails
// the task naming the message, which leaves it in the DLQ — mfdlq must
// not count on either.
func (s *Server) destinationOf(ctx context.Context, t *task, m types.Message, destURL string) (string, error) {
	if destURL != "" {
		return destURL, nil
	}
	arn := m.Attributes[string(types.MessageSystemAttributeNameDeadLetterQueueSourceArn)]
	if arn == "" && t.only != "" {
		return t.only, nil
	}
	if arn == "" {
		return "", fmt.Errorf("message %s has no DeadLetterQueueSourceArn and the task has no DestinationArn", aws.ToString(m.MessageId))
	}
	url, err := s.urlOf(ctx, arn)
	if err != nil {
		return "", fmt.Errorf("AWS.SimpleQueueService.NonExistentQueue: the source queue %s of message %s does not exist", arn, aws.ToString(m.MessageId))
	}
	return url, nil
}

func (s *Server) list(body []byte) (any, *apiError) {
	var in struct {
		SourceArn  string
		MaxResults *int32
	}
	if err := json.Unmarshal(body, &in); err != nil || in.SourceArn == "" {
		return nil, errorf("InvalidParameterValue", "SourceArn is required")
	}
	n := int32(1)
	if in.MaxResults != nil {
		if *in.MaxResults < 1 || *in.MaxResults > 10 {
			return nil, errorf("InvalidParameterValue", "MaxResults must be between 1 and 10")
		}
		n = *in.MaxResults
	}
	if _, err := s.urlOf(context.Background(), in.SourceArn); err != nil {
		return nil, errorf("ResourceNotFoundException", "The resource that you specified for the SourceArn parameter doesn't exist.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	results := []taskView{}
	ts := s.tasks[in.SourceArn]
	for i := len(ts) - 1; i >= 0 && len(results) < int(n); i-- {
		results = append(results, ts[i].view())
	}
	return struct {
		Results []taskView `json:"Results"`
	}{results}, nil
}

func (s *Server) cancel(body []byte) (any, *apiError) {
	var in struct{ TaskHandle string }
	if err := json.Unmarshal(body, &in); err != nil || in.TaskHandle == "" {
		return nil, errorf("InvalidParameterValue", "TaskHandle is required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ts := range s.tasks {
		for _, t := range ts {
			if t.handle != in.TaskHandle {
				continue
			}
			t.mu.Lock()
			defer t.mu.Unlock()
			if t.status != "RUNNING" {
				return nil, errorf("ResourceNotFoundException", "Task does not exist or is not running.")
			}
			t.status = "CANCELLING"
			t.cancel()
			return map[string]int64{"ApproximateNumberOfMessagesMoved": t.moved}, nil
		}
	}
	return nil, errorf("ResourceNotFoundException", "Task does not exist or is not running.")
}

// urlOf finds a queue by ARN on the backend.
func (s *Server) urlOf(ctx context.Context, queueARN string) (string, error) {
	a, err := arn.Parse(queueARN)
	if err != nil || a.Service != "sqs" {
		return "", fmt.Errorf("not an SQS ARN")
	}
	out, err := s.sqs.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(a.Resource), QueueOwnerAWSAccountId: aws.String(a.AccountID)})
	if err != nil {
		return "", err
	}
	return aws.ToString(out.QueueUrl), nil
}
