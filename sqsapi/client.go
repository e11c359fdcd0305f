// Package sqsapi is mfdlq's SQS layer: it builds the SQS client, resolves a
// queue given by name, URL or ARN, reads its depth and redrive policy, finds
// a DLQ's source queues, and receives messages without harming them.
package sqsapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// MaxAttempts is the SDK's attempts per SQS call (the first try plus two
// retries). mfdlq keeps it small: loops above it (redrive) own the retrying,
// and stacked retry layers multiply. docs/aws.md states the worst case.
const MaxAttempts = 3

// Client is every SQS call mfdlq makes, with the SDK's own signatures so that
// *sqs.Client satisfies it as is. Packages that need fewer calls declare a
// smaller interface of their own.
type Client interface {
	GetQueueUrl(ctx context.Context, in *sqs.GetQueueUrlInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
	ListQueues(ctx context.Context, in *sqs.ListQueuesInput, optFns ...func(*sqs.Options)) (*sqs.ListQueuesOutput, error)
	ListDeadLetterSourceQueues(ctx context.Context, in *sqs.ListDeadLetterSourceQueuesInput, optFns ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error)
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	StartMessageMoveTask(ctx context.Context, in *sqs.StartMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.StartMessageMoveTaskOutput, error)
	ListMessageMoveTasks(ctx context.Context, in *sqs.ListMessageMoveTasksInput, optFns ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error)
	CancelMessageMoveTask(ctx context.Context, in *sqs.CancelMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.CancelMessageMoveTaskOutput, error)
	TagQueue(ctx context.Context, in *sqs.TagQueueInput, optFns ...func(*sqs.Options)) (*sqs.TagQueueOutput, error)
	UntagQueue(ctx context.Context, in *sqs.UntagQueueInput, optFns ...func(*sqs.Options)) (*sqs.UntagQueueOutput, error)
	ListQueueTags(ctx context.Context, in *sqs.ListQueueTagsInput, optFns ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error)
}

var _ Client = (*sqs.Client)(nil)

// IdleConnsPerHost is how many idle connections the client keeps per
// host: enough for redrive's largest number of batches in flight (128)
// times the calls each has out at once (3), plus room for the depth reads
// and visibility changes. The SDK's default of 10 made a 32-worker move
// open a new connection (a TLS handshake on real SQS) for about one call
// in four. A test keeps it in step with mover.MaxWorkersLimit.
const IdleConnsPerHost = 400

// New builds the SQS client mfdlq uses: the SDK client from cfg with small
// retries, the whole response body read before it is decoded, and idle
// connections for every call a move has in flight.
func New(cfg aws.Config, optFns ...func(*sqs.Options)) *sqs.Client {
	cfg.HTTPClient = keepIdle(cfg.HTTPClient)
	return sqs.NewFromConfig(cfg, append([]func(*sqs.Options){Configure}, optFns...)...)
}

// keepIdle raises the idle connections of the SDK's own HTTP client; a
// client the caller built is left as it is.
func keepIdle(c aws.HTTPClient) aws.HTTPClient {
	bc, ok := c.(*awshttp.BuildableClient)
	switch {
	case c == nil:
		bc = awshttp.NewBuildableClient()
	case !ok:
		return c
	}
	return bc.WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConns = max(t.MaxIdleConns, IdleConnsPerHost)
		t.MaxIdleConnsPerHost = max(t.MaxIdleConnsPerHost, IdleConnsPerHost)
	})
}

// Configure applies mfdlq's SQS client settings to o.
func Configure(o *sqs.Options) {
	o.RetryMaxAttempts = MaxAttempts
	o.APIOptions = append(o.APIOptions, AddReadWholeBody)
}

// AddReadWholeBody adds a deserialize-step middleware, innermost, that reads
// the whole HTTP response body into memory before the SDK decodes it.
//
// Why: aws-sdk-go-v2 issues 1825, 2737 and 2935 — ReceiveMessage sometimes
// fails with "deserialization failed … use of closed network connection"
// although SQS answered 200, because the body is decoded while streaming from
// a connection that gets closed. SQS has by then made the batch invisible, so
// the messages are stranded until their visibility timeout. Reading the body
// first turns a broken read into a plain, retryable connection error on an
// attempt the SDK repeats, and decoding never touches the network.
func AddReadWholeBody(stack *middleware.Stack) error {
	return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc(readWholeBodyID, readWholeBody), middleware.After)
}

const readWholeBodyID = "mfdlq.ReadWholeBody"

func readWholeBody(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleDeserialize(ctx, in)
	if err != nil {
		return out, md, err
	}
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if !ok || resp.Body == nil {
		return out, md, nil
	}
	// Read into a buffer of the announced size: one allocation, not the
	// doublings of io.ReadAll, on every call of a move.
	buf := bytes.NewBuffer(make([]byte, 0, min(max(resp.ContentLength, 0), 16<<20)+bytes.MinRead))
	_, readErr := buf.ReadFrom(resp.Body)
	body := buf.Bytes()
	resp.Body.Close()
	if readErr != nil {
		return out, md, &bodyReadError{err: readErr}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return out, md, nil
}

// bodyReadError is a response body that broke off mid-read. It is always
// retryable: the request reached SQS, and repeating a receive or a batch
// call is safe (a repeated send is a duplicate, which at-least-once allows).
type bodyReadError struct{ err error }

func (e *bodyReadError) Error() string        { return fmt.Sprintf("read response body: %v", e.err) }
func (e *bodyReadError) Unwrap() error        { return e.err }
func (e *bodyReadError) RetryableError() bool { return true }
