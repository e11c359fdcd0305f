package sqsapi

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// PeekOptions bound a harmless look at a queue.
type PeekOptions struct {
	// Max is how many distinct messages to collect.
	Max int
	// Visibility is the VisibilityTimeout (seconds) of each receive: how long
	// the peeked messages stay hidden from consumers. inspect uses 5. It must
	// be at least 1: the SDK omits a zero VisibilityTimeout, and SQS then
	// applies the queue's default, hiding the messages for 30 s or more.
	Visibility int32
	// Wait is the long-poll WaitTimeSeconds of each receive (1-20).
	Wait int32
	// QuietRounds is how many receives in a row must show nothing new before
	// the queue is taken to have nothing more to show. Long polls only: one
	// empty short poll proves nothing on SQS, which samples its servers.
	QuietRounds int
}

// PeekResult is what a peek saw.
type PeekResult struct {
	Messages []sqsjson.Message
	Receives int // ReceiveMessage calls made
	Seen     int // messages returned in all, repeats included
	// Handles is each message's latest receipt handle (MessageId → handle),
	// those past Max included: what Release takes to make them visible at
	// once instead of after the peek's visibility timeout.
	Handles map[string]string
}

// Peek receives up to opts.Max distinct messages from q with every system
// and message attribute, and never deletes or changes one: each comes back
// after opts.Visibility seconds. Every receive still adds one to a message's
// ApproximateReceiveCount — callers must say so, and later steps must not read
// that count as the consumer's.
func Peek(ctx context.Context, c Client, q *Queue, opts PeekOptions) (PeekResult, error) {
	if opts.Max <= 0 {
		return PeekResult{}, fmt.Errorf("peek: max must be > 0")
	}
	if opts.Visibility < 1 {
		return PeekResult{}, fmt.Errorf("peek: visibility must be at least 1 second (0 would mean the queue's default)")
	}
	if opts.QuietRounds <= 0 {
		opts.QuietRounds = 2
	}
	if opts.Wait <= 0 {
		opts.Wait = 1
	}
	handles := make(map[string]string, opts.Max) // MessageId → latest receipt handle
	res := PeekResult{Messages: []sqsjson.Message{}}
	quiet := 0
	for len(res.Messages) < opts.Max && quiet < opts.QuietRounds {
		if ctx.Err() != nil {
			return res, peekFailed(ctx, c, q, handles, opts, fmt.Errorf("peek at %s: %w", q.Name, ctx.Err()), false)
		}
		batch := min(opts.Max-len(res.Messages), 10)
		// Never cancelled: a receive cancelled after SQS answered would
		// hide its messages unseen.
		out, err := c.ReceiveMessage(context.WithoutCancel(ctx), &sqs.ReceiveMessageInput{
			QueueUrl:                    aws.String(q.URL),
			MaxNumberOfMessages:         int32(batch),
			VisibilityTimeout:           opts.Visibility,
			WaitTimeSeconds:             opts.Wait,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
			MessageAttributeNames:       []string{"All"},
		})
		if err != nil {
			return res, peekFailed(ctx, c, q, handles, opts, fmt.Errorf("receive from %s: %w", q.Name, err), true)
		}
		res.Receives++
		res.Seen += len(out.Messages)
		fresh := 0
		for _, m := range out.Messages {
			id := aws.ToString(m.MessageId)
			_, seen := handles[id]
			handles[id] = aws.ToString(m.ReceiptHandle)
			if seen || len(res.Messages) >= opts.Max {
				continue
			}
			res.Messages = append(res.Messages, FromSDK(m))
			fresh++
		}
		if fresh == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
	res.Handles = handles
	return res, nil
}

// peekFailed makes every message the peek received visible again at once
// (a failed or interrupted peek leaves nothing hidden that it can reach)
// and says so in the error: how many, how many SQS did not confirm, and,
// after a failed receive whose answer may have been lost, when what it
// hid unseen reappears.
func peekFailed(ctx context.Context, c Client, q *Queue, handles map[string]string, opts PeekOptions, err error, lost bool) error {
	failed := Release(context.WithoutCancel(ctx), c, q.URL, handles)
	msg := fmt.Sprintf("the %d messages peeked were made visible again", len(handles)-failed)
	if failed > 0 {
		msg += fmt.Sprintf(", %d not (SQS did not confirm: back within %ds)", failed, opts.Visibility)
	}
	if lost {
		msg += fmt.Sprintf("; any a receive whose answer was lost hid reappear within %ds", opts.Visibility)
	}
	return fmt.Errorf("%w; %s", err, msg)
}

// Release makes the messages of handles (MessageId → receipt handle)
// visible again, ten a call, and returns how many SQS did not confirm. A
// message already visible (MessageNotInflight) needs no release.
func Release(ctx context.Context, c Client, url string, handles map[string]string) (failed int) {
	ids := make([]string, 0, len(handles))
	for id := range handles {
		ids = append(ids, id)
	}
	for start := 0; start < len(ids); start += 10 {
		chunk := ids[start:min(start+10, len(ids))]
		entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(chunk))
		for i, id := range chunk {
			entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), ReceiptHandle: aws.String(handles[id])}
		}
		out, err := c.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(url), Entries: entries})
		if err != nil {
			failed += len(chunk)
			continue
		}
		for _, f := range out.Failed {
			if !awserr.NotInFlightCode(aws.ToString(f.Code)) {
				failed++
			}
		}
	}
	return failed
}
