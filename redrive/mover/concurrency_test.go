package mover

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (f *fakeClock) now() time.Time { return f.t }

// server models a queue behind round trips: limit batches in flight move
// perWorker msg/s each until capacity msg/s; past it, calls queue and the
// latency grows with the excess.
type server struct {
	rtt       time.Duration
	perWorker float64
	capacity  float64
	throttle  func(limit int) bool // nil: never
	waited    bool                 // every batch waits for the rate limiter
}

func (s server) at(limit int) (rate float64, lat time.Duration) {
	want := float64(limit) * s.perWorker
	rate = min(want, s.capacity)
	return rate, time.Duration(float64(s.rtt) * max(1, want/s.capacity))
}

// drive feeds the controller batches of 10 for d of fake time, as the
// server would answer them at the controller's limit of the moment.
func drive(c *controller, clk *fakeClock, s server, d time.Duration) (limits []int) {
	end := clk.t.Add(d)
	for clk.t.Before(end) {
		limit := c.Limit()
		rate, lat := s.at(limit)
		var err error
		if s.throttle != nil && s.throttle(limit) {
			err = throttleErr()
		}
		c.Call(lat, err)
		clk.t = clk.t.Add(time.Duration(float64(time.Second) * 10 / rate))
		c.Batch(10, s.waited)
		if len(limits) == 0 || limits[len(limits)-1] != c.Limit() {
			limits = append(limits, c.Limit())
		}
	}
	return limits
}

func newTestController(o controllerOptions) (*controller, *fakeClock) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	o.Now = clk.now
	if o.Max == 0 {
		o.Max = DefaultMaxWorkers
	}
	return newController(o), clk
}

func throttleErr() error {
	return &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 400}}, Err: &smithy.GenericAPIError{Code: "ThrottlingException"}}
}

// At 20 ms per call a --rate above 20 msg/s that the server cannot give
// starts at 8 and doubles up to the knee within a few rounds, then stays
// near it: enough batches in flight for the capacity, not many more.
func TestControllerFindsTheKnee(t *testing.T) {
	c, clk := newTestController(controllerOptions{Rate: 100000})
	s := server{rtt: 20 * time.Millisecond, perWorker: 400, capacity: 6000} // knee: 15
	ramp := drive(c, clk, s, 300*time.Millisecond)
	if got := c.Limit(); got < 15 {
		t.Fatalf("after 300 ms the limit is %d (steps %v), want the knee (15) reached", got, ramp)
	}
	steps := drive(c, clk, s, 10*time.Second)
	if got := c.Limit(); got < 15 || got > 30 {
		t.Fatalf("after 10 s the limit is %d (steps %v), want it between the knee and twice it", got, steps)
	}
	if st := c.Status(); st.Peak > DefaultMaxWorkers || st.Peak < c.Limit() {
		t.Fatalf("status %+v", st)
	}
}

// --rate max starts where the controller ended when it started at 8
// (maxRateStart) and probes up from there: to a knee above it within a
// few seconds, never past the cap.
func TestControllerStartsWhereAMaxMoveEnds(t *testing.T) {
	c, clk := newTestController(controllerOptions{})
	if c.Limit() != maxRateStart {
		t.Fatalf("--rate max starts at %d batches in flight, want %d", c.Limit(), maxRateStart)
	}
	if small, _ := newTestController(controllerOptions{Max: 8}); small.Limit() != 8 {
		t.Fatalf("--rate max --max-workers 8 starts at %d, want 8", small.Limit())
	}
	if r, _ := newTestController(controllerOptions{Rate: 100}); r.Limit() != 8 {
		t.Fatalf("--rate 100 starts at %d, want 8", r.Limit())
	}
	s := server{rtt: 20 * time.Millisecond, perWorker: 400, capacity: 24000} // knee: 60
	steps := drive(c, clk, s, 10*time.Second)
	if got := c.Limit(); got < 56 || got > DefaultMaxWorkers {
		t.Fatalf("after 10 s the limit is %d (steps %v), want it at the knee (60) or the cap", got, steps)
	}
	if st := c.Status(); st.Peak > DefaultMaxWorkers || st.Peak < c.Limit() || st.Behind != "" {
		t.Fatalf("status %+v", st)
	}
}

// When the client is what saturates (0 ms, CPU-bound), more batches buy
// nothing: the limit does not run to the cap. (--rate max stays where it
// started, a step above at most; it does not come down to the knee.)
func TestControllerStopsWhereThroughputStopsGrowing(t *testing.T) {
	c, clk := newTestController(controllerOptions{})
	s := server{rtt: 500 * time.Microsecond, perWorker: 4000, capacity: 12000} // knee: 3
	steps := drive(c, clk, s, 10*time.Second)
	if got := c.Limit(); got > maxRateStart+maxRateStart/8 {
		t.Fatalf("limit %d (steps %v), want it to stay where throughput stopped growing", got, steps)
	}
}

// Throttling halves the limit, and the controller does not climb back into
// it at once.
func TestControllerBacksOffOnThrottling(t *testing.T) {
	c, clk := newTestController(controllerOptions{})
	s := server{rtt: 20 * time.Millisecond, perWorker: 400, capacity: 100000, throttle: func(limit int) bool { return limit > 20 }}
	drive(c, clk, s, 5*time.Second)
	if got := c.Limit(); got > 20 {
		t.Fatalf("limit %d, want it at or below where throttling starts (20)", got)
	}
	steps := drive(c, clk, s, 5*time.Second)
	for _, l := range steps {
		if l > 2*20 {
			t.Fatalf("limit climbed to %d (steps %v) against throttling at 20", l, steps)
		}
	}
}

// While the rate limiter is the bottleneck, the limit holds.
func TestControllerHoldsWhileTheLimiterBinds(t *testing.T) {
	c, clk := newTestController(controllerOptions{Rate: 1000})
	s := server{rtt: 20 * time.Millisecond, perWorker: 400, capacity: 100000, waited: true}
	if steps := drive(c, clk, s, 5*time.Second); len(steps) != 1 {
		t.Fatalf("limit moved (steps %v) while every batch waited for the limiter", steps)
	}
	if st := c.Status(); st.Behind != "" {
		t.Fatalf("behind %q while the limiter binds", st.Behind)
	}
	// Nor does it grow on rounds that reach the rate without waiting (the
	// tokens a stall left in the bucket).
	r, clk := newTestController(controllerOptions{Rate: 1000})
	if steps := drive(r, clk, server{rtt: 20 * time.Millisecond, perWorker: 400, capacity: 1000}, 5*time.Second); len(steps) != 1 {
		t.Fatalf("limit moved (steps %v) at the rate asked for", steps)
	}
	// Below 20 msg/s one batch in flight is enough to start with.
	if c, _ := newTestController(controllerOptions{Rate: 10}); c.Limit() != 1 {
		t.Fatalf("--rate 10 starts at %d batches in flight, want 1", c.Limit())
	}
}

// A --rate that the server cannot give: the limit grows to the cap, and
// the status says why the rate is not reached.
func TestControllerSaysWhyTheRateIsNotReached(t *testing.T) {
	c, clk := newTestController(controllerOptions{Rate: 5000, Max: 8})
	s := server{rtt: 20 * time.Millisecond, perWorker: 400, capacity: 100000}
	drive(c, clk, s, 3*time.Second)
	if st := c.Status(); c.Limit() != 8 || !strings.Contains(st.Behind, "the --max-workers cap") {
		t.Fatalf("limit %d, status %+v: want the cap named", c.Limit(), st)
	}
	f, clk := newTestController(controllerOptions{Rate: 5000, Fixed: 2})
	drive(f, clk, s, 3*time.Second)
	if st := f.Status(); f.Limit() != 2 || !strings.Contains(st.Behind, "--workers 2 fixes") {
		t.Fatalf("fixed: limit %d, status %+v", f.Limit(), st)
	}
	th, clk := newTestController(controllerOptions{Rate: 5000})
	drive(th, clk, server{rtt: 20 * time.Millisecond, perWorker: 400, capacity: 100000, throttle: func(int) bool { return true }}, 3*time.Second)
	if st := th.Status(); th.Limit() != 1 || !strings.Contains(st.Behind, "throttling") {
		t.Fatalf("throttled: limit %d, status %+v", th.Limit(), st)
	}
}

func TestCongestionKinds(t *testing.T) {
	status := func(code int, api string) error {
		return &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: code}}, Err: &smithy.GenericAPIError{Code: api}}
	}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{nil, ""}, {throttleErr(), "throttled"}, {status(429, "TooManyRequests"), "throttled"},
		{status(500, "InternalError"), "fault"}, {status(503, "ServiceUnavailable"), "fault"},
		{status(403, "AccessDenied"), ""}, {&smithy.GenericAPIError{Code: "RequestThrottled"}, "throttled"},
	} {
		if got := congestion(tt.err); got != tt.want {
			t.Errorf("congestion(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// The SQS client keeps an idle connection for every call the largest move
// can have in flight.
func TestIdleConnectionsCoverTheCap(t *testing.T) {
	if sqsapi.IdleConnsPerHost < MaxWorkersLimit*callsPerBatch {
		t.Fatalf("sqsapi keeps %d idle connections per host, a move can have %d × %d calls in flight",
			sqsapi.IdleConnsPerHost, MaxWorkersLimit, callsPerBatch)
	}
}
