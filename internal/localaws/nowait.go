package localaws

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// What moto makes a test wait for on the wall clock that the code under
// test does not: the SDK's backoff between the attempts of a call that a
// test breaks on purpose (internal/faultproxy), and a long poll of a queue
// with nothing to hand out. Neither is what such a test proves.

// NoBackoff is r without the SDK's backoff between attempts (jittered, up
// to seconds a retry): the same attempts, retried at once.
func NoBackoff(r aws.RetryerV2) aws.RetryerV2 { return noBackoff{r} }

type noBackoff struct{ aws.RetryerV2 }

func (noBackoff) RetryDelay(int, error) (time.Duration, error) { return 0, nil }

// ShortPolls is an SQS client whose receives are short polls whatever
// WaitTimeSeconds they ask. moto's long poll waits its full time when it
// has nothing to hand out (a reader's quiet rounds, a FIFO group whose
// head is held), while its short poll, unlike SQS's, sees every message:
// the reader meets the same answers at once.
type ShortPolls struct{ *sqs.Client }

// ReceiveMessage is the client's with WaitTimeSeconds 0.
func (c ShortPolls) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	short := *in
	short.WaitTimeSeconds = 0
	return c.Client.ReceiveMessage(ctx, &short, optFns...)
}
