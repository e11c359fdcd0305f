package inventory

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

// Retryer is the retry policy of a listing's clients. Every call of a
// listing is a read, so retrying is always safe: up to 8 attempts with the
// SDK's jittered exponential backoff (throttling included), and no
// client-side retry quota — the SDK's default quota, shared by the
// concurrent reads of thousands of queues, would run dry under throttling
// and turn a slow listing into a failed one.
func Retryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 8
		o.RateLimiter = ratelimit.None
	})
}
