package retry

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

func TestRetryPolicy(t *testing.T) {
	serverErr := &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 500}}, Err: &smithy.GenericAPIError{Code: "InternalError"}}
	throttle := &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 400}}, Err: &smithy.GenericAPIError{Code: "ThrottlingException"}}
	denied := &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 403}}, Err: &smithy.GenericAPIError{Code: "AccessDenied"}}
	for _, tt := range []struct {
		err  error
		want bool
	}{{serverErr, true}, {throttle, true}, {denied, false}, {context.Canceled, false}, {errors.New("read: connection reset by peer"), true},
		{&smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 200}}, Err: errors.New("read response body: use of closed network connection")}, true}} {
		if got := Retryable(tt.err); got != tt.want {
			t.Errorf("Retryable(%v) = %v", tt.err, got)
		}
	}
	r := Default()
	var slept []time.Duration
	r.sleep = func(d time.Duration) { slept = append(slept, d) }
	calls := 0
	err := r.Do(context.Background(), func(context.Context) error { calls++; return serverErr })
	if !errors.Is(err, serverErr) || calls != r.MaxAttempts {
		t.Fatalf("5xx: %d calls, want %d (%v)", calls, r.MaxAttempts, err)
	}
	for i, d := range slept {
		if d < 0 || d > min(r.Cap, r.Base<<i) {
			t.Errorf("sleep %d = %s outside full jitter", i, d)
		}
	}
	calls = 0
	if r.Do(context.Background(), func(context.Context) error { calls++; return denied }); calls != 1 {
		t.Fatalf("4xx retried: %d calls", calls)
	}
	// The budget: once retries pass 10% of calls (+ the floor) none is made.
	for range 100 {
		r.Do(context.Background(), func(context.Context) error { return serverErr })
	}
	c, retries := r.Stats()
	if float64(retries) > 0.1*float64(c)+float64(r.BudgetFloor)+1 {
		t.Fatalf("%d retries in %d calls: over budget", retries, c)
	}
}

// Stats returns the calls made and the retries among them (only the tests
// read them; the budget reads the fields under the lock).
func (r *Policy) Stats() (calls, retries int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls, r.retries
}
