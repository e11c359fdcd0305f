package sqsapi

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

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
	seen := make(map[string]bool, opts.Max)
	res := PeekResult{Messages: []sqsjson.Message{}}
	quiet := 0
	for len(res.Messages) < opts.Max && quiet < opts.QuietRounds {
		batch := min(opts.Max-len(res.Messages), 10)
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:                    aws.String(q.URL),
			MaxNumberOfMessages:         int32(batch),
			VisibilityTimeout:           opts.Visibility,
			WaitTimeSeconds:             opts.Wait,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
			MessageAttributeNames:       []string{"All"},
		})
		if err != nil {
			return res, fmt.Errorf("receive from %s: %w", q.Name, err)
		}
		res.Receives++
		res.Seen += len(out.Messages)
		fresh := 0
		for _, m := range out.Messages {
			id := aws.ToString(m.MessageId)
			if seen[id] || len(res.Messages) >= opts.Max {
				continue
			}
			seen[id] = true
			res.Messages = append(res.Messages, FromSDK(m))
			fresh++
		}
		if fresh == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
	return res, nil
}
