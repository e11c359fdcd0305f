// Package retry is the redrive's one retry layer for AWS calls: a policy
// with full-jitter backoff and a retry budget, and the one judgement of
// which errors are worth another attempt (Retryable). The SDK's own
// retries are off for these calls (NoSDK), so attempts never multiply.
package retry

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/awserr"
)

// Policy is the mover's one retry layer. The SDK's own retries are switched
// off for the mover's calls (NoSDK), so the worst case per call is
// exactly MaxAttempts, and per message (one send and one delete, each in a
// batch) 2 × MaxAttempts calls — fewer once the budget is spent.
type Policy struct {
	// MaxAttempts is the attempts per call, the first included.
	MaxAttempts int
	// Base and Cap bound the exponential backoff: attempt n sleeps a random
	// duration in [0, min(Cap, Base·2ⁿ)) ("full jitter").
	Base, Cap time.Duration
	// Budget is the share of calls that may be retries (0.1: one retry per
	// ten calls, plus BudgetFloor), so a sick endpoint is not hammered.
	Budget      float64
	BudgetFloor int

	mu      sync.Mutex
	calls   int
	retries int
	sleep   func(time.Duration) // nil: time.Sleep; tests replace it
}

// Default is the policy documented in docs/redrive-design.md.
func Default() *Policy {
	return &Policy{MaxAttempts: 6, Base: 100 * time.Millisecond, Cap: 5 * time.Second, Budget: 0.1, BudgetFloor: 20}
}

// NoSDK makes one SDK call one attempt: the mover's loop owns retries,
// and stacked layers would multiply the attempts per message.
func NoSDK(o *sqs.Options) {
	// The SDK wraps the client's retryer for this one call when an
	// operation's RetryMaxAttempts differs from the client's.
	o.RetryMaxAttempts = 1
}

// Do runs call until it succeeds, fails for good, or the attempts or the
// budget run out. The backoff sleeps ignore ctx on purpose: Do runs sends
// and deletes that must finish after Ctrl-C.
func (r *Policy) Do(ctx context.Context, call func(context.Context) error) error {
	var err error
	for attempt := 0; ; attempt++ {
		r.mu.Lock()
		r.calls++
		r.mu.Unlock()
		if err = call(ctx); err == nil || !Retryable(err) || attempt+1 >= r.MaxAttempts || !r.spend() {
			return err
		}
		r.pause(attempt)
	}
}

// spend takes one retry from the budget; false when it is exhausted.
func (r *Policy) spend() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if float64(r.retries) >= r.Budget*float64(r.calls)+float64(r.BudgetFloor) {
		return false
	}
	r.retries++
	return true
}

func (r *Policy) pause(attempt int) {
	ceil := r.Cap
	if attempt < 30 {
		ceil = min(r.Cap, r.Base<<attempt)
	}
	d := time.Duration(rand.Int64N(int64(ceil) + 1))
	if r.sleep != nil {
		r.sleep(d)
		return
	}
	time.Sleep(d)
}

// Retryable tells whether err is worth another attempt (awserr.Retryable:
// throttling, a 5xx, or a connection that broke — the request may or may
// not have reached SQS; repeating a receive, send or delete is safe for
// at-least-once). A 4xx is final: the message stays in the DLQ and is
// reported.
func Retryable(err error) bool { return awserr.Retryable(err) }
