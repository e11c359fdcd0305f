package mover

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/receipts"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// DefaultMaxWorkers is --max-workers: the most batches an adaptive move
// keeps in flight. A SIGKILL duplicates at most 10 × this many messages.
const DefaultMaxWorkers = 64

// MaxWorkersLimit is the largest --workers or --max-workers accepted. The
// SQS client keeps idle connections for this many batches in flight
// (sqsapi.IdleConnsPerHost ≥ MaxWorkersLimit × CallsPerBatch).
const MaxWorkersLimit = 128

// callsPerBatch is the calls one worker can have in flight at once: the
// receive of the next batch, the send of this one, the delete of the last.
const callsPerBatch = 3

// controller picks how many batches the mover keeps in flight (the active
// workers). Fixed (--workers), it keeps the number it was given. Adaptive,
// it is an AIMD controller on throughput, in rounds:
//
//   - a round ends when at least as many batches as the limit were sent and
//     three call latencies (of the fastest round so far, at least 20 ms)
//     have passed, so the workers added by the last decision have had a
//     batch through; each round ends in one decision;
//   - throttling or a 5xx in a round halves the limit (multiplicative
//     decrease) and holds it for three rounds;
//   - a round in which most batches waited for the --rate limiter, or that
//     reached the rate, holds the limit: the limiter, not the round trips,
//     is the bottleneck;
//   - slow start: double the limit while each doubling buys 50 % more
//     throughput; after one that bought less, stay (5 % or more) or settle
//     halfway back (less);
//   - then additive increase: probe + max(1, limit/8); keep it when the
//     next round's throughput is 5 % higher (or a --rate is still out of
//     reach and the call latency is under twice the fastest round's), else
//     go back and hold for eight rounds before probing again.
//
// Latency is not used to shrink: on a machine shared with other work it
// rises for reasons of its own, and a throughput that does not grow already
// stops the growth. The clock is injected so the logic is tested without
// sleeping.
type controller struct {
	mu      sync.Mutex
	now     func() time.Time
	fixed   bool
	max     int
	limit   int
	peak    int
	target  float64 // --rate, 0 for max
	start   time.Time
	changed chan struct{}

	r         round
	slowStart bool
	base      time.Duration // mean call latency of the fastest round
	lastRate  float64       // throughput of the round before the last increase
	lastLimit int           // the limit before the last increase (0: none pending)
	hold      int           // rounds left without an increase
	behind    int           // rounds in a row below the target, the limiter idle
	congested string        // why the last back-off happened, while recent
	quiet     int           // rounds since the last back-off
	latency   time.Duration // mean call latency of the last round
	rate      float64       // throughput of the last round
}

// round collects what happened since the last decision.
type round struct {
	start            time.Time
	msgs, batches    int
	waited           int // batches that waited for the rate limiter
	lat              time.Duration
	calls            int
	throttled, fault int
}

// controllerOptions configure a Controller.
type controllerOptions struct {
	// Fixed, when > 0, keeps this many batches in flight (--workers).
	Fixed int
	// Max caps the adaptive limit (--max-workers).
	Max int
	// Rate is the target in msg/s (--rate), 0 for as fast as possible.
	Rate float64
	// Now is the clock; nil: the wall clock (receipts.System).
	Now func() time.Time
}

// maxRateStart is where an adaptive --rate max move starts: where the
// controller ended when it started lower (5,000 messages at 20 ms a call,
// through fauxqs: 36, 64 and 36 batches in flight, after a ramp from 8
// whose first 300 ms sent 50 to 65 batches per 100 ms).
const maxRateStart = 32

// newController returns a controller starting at Fixed, or for an adaptive
// move at 1 below 20 msg/s (one batch in flight keeps up, and a SIGKILL of a
// slow, careful move duplicates at most 10), at min(8, Max) for a higher
// --rate, and at min(maxRateStart, Max) for --rate max, which probes up
// additively from there (no slow start: its first doubling would be blind).
func newController(o controllerOptions) *controller {
	if o.Now == nil {
		o.Now = receipts.System.Now
	}
	c := &controller{now: o.Now, max: max(o.Max, 1), target: o.Rate, slowStart: true, changed: make(chan struct{}), quiet: 1 << 30}
	switch {
	case o.Fixed > 0:
		c.fixed, c.limit, c.max = true, o.Fixed, o.Fixed
	case o.Rate > 0 && o.Rate < 20:
		c.limit = 1
	case o.Rate > 0:
		c.limit = min(8, c.max)
	default:
		c.limit, c.slowStart = min(maxRateStart, c.max), false
	}
	c.peak = c.limit
	c.start = c.now()
	c.r.start = c.start
	return c
}

// Restart begins a new round now: the time the workers spent waiting
// before they could send (the lease's read-back) is no round's.
func (c *controller) Restart() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.r = round{start: c.now()}
}

// Limit is how many batches may be in flight now.
func (c *controller) Limit() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limit
}

// Changed returns a channel closed at the next change of the limit.
func (c *controller) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// Call records one send or delete attempt: its latency, or the throttling
// or server error it met. A receive reports only its errors (its latency
// includes the long poll).
func (c *controller) Call(d time.Duration, err error) {
	kind := congestion(err)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch kind {
	case "throttled":
		c.r.throttled++
	case "fault":
		c.r.fault++
	case "":
		if err == nil && d > 0 {
			c.r.lat += d
			c.r.calls++
		}
	}
}

// Batch records one sent batch: msgs sent, and whether it waited for the
// rate limiter. It ends the round, and decides, when the round is long
// enough.
func (c *controller) Batch(msgs int, waited bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.r.msgs += msgs
	c.r.batches++
	if waited {
		c.r.waited++
	}
	now := c.now()
	el := now.Sub(c.r.start)
	if c.r.batches < c.limit || el < max(3*c.base, 20*time.Millisecond) {
		return
	}
	c.decide(el)
	c.r = round{start: now}
}

// decide applies one round; c.mu is held.
func (c *controller) decide(el time.Duration) {
	r := c.r
	rate := float64(r.msgs) / el.Seconds()
	c.rate = rate
	if r.calls > 0 {
		c.latency = r.lat / time.Duration(r.calls)
		if c.base == 0 || c.latency < c.base {
			c.base = c.latency
		}
	}
	limited := r.waited*2 >= r.batches
	c.quiet++
	c.trackBehind(rate, limited)
	if r.throttled+r.fault > 0 {
		c.congested, c.quiet = congestionText(r), 0
	}
	if c.fixed {
		return
	}
	next := c.limit
	switch {
	case r.throttled+r.fault > 0:
		next, c.slowStart, c.hold = c.limit/2, false, 3
	case limited, c.target > 0 && rate >= 0.97*c.target:
		// The limiter held the move back, or the rate is reached (a round
		// that spent tokens saved during a stall): more batches would buy
		// nothing, and an increase proves nothing.
		c.lastLimit = 0
	case c.lastLimit > 0 && c.slowStart:
		// Judge the last doubling: half again as much throughput, double
		// again; some gain, stay and probe from here; none, the knee is
		// between the two.
		switch {
		case rate >= 1.5*c.lastRate:
			next = 2 * c.limit
		case rate >= 1.05*c.lastRate:
			c.slowStart = false
		default:
			c.slowStart = false
			next = (c.lastLimit + c.limit) / 2
		}
	case c.lastLimit > 0:
		// Judge the last step: 5 % more, or a --rate still out of reach.
		if rate >= 1.05*c.lastRate || c.wantsMore(rate) {
			next = c.limit + c.step()
		} else {
			next, c.hold = c.lastLimit, 8
		}
	case c.hold > 0:
		c.hold--
	case c.slowStart:
		next = 2 * c.limit
	default:
		next = c.limit + c.step() // probe
	}
	c.set(next, rate)
}

// step is the additive increase: an eighth of the limit, at least one.
func (c *controller) step() int { return max(1, c.limit/8) }

// set moves the limit to next within [1, max]. An increase is remembered
// with the round's throughput, so that the next round judges it.
func (c *controller) set(next int, rate float64) {
	next = min(max(next, 1), c.max)
	c.lastLimit = 0
	if next > c.limit {
		c.lastLimit, c.lastRate = c.limit, rate
	}
	if next == c.limit {
		return
	}
	c.limit = next
	c.peak = max(c.peak, next)
	close(c.changed)
	c.changed = make(chan struct{})
}

// wantsMore: a --rate not reached yet, and call latency under twice the
// fastest round's, so the server is not what is saturated.
func (c *controller) wantsMore(rate float64) bool {
	return c.target > 0 && rate < 0.97*c.target && (c.base == 0 || c.latency <= 2*c.base)
}

// trackBehind counts the rounds in a row below the target rate in which
// the rate limiter was not what held the move back.
func (c *controller) trackBehind(rate float64, limited bool) {
	if c.target == 0 || limited || rate >= 0.97*c.target {
		c.behind = 0
		return
	}
	c.behind++
}

// controllerStatus is what the progress line shows.
type controllerStatus struct {
	Limit, Peak int
	Latency     time.Duration // mean send/delete call latency, last round
	// Behind says why --rate is not reached; "" when it is, or when it is
	// too early to tell.
	Behind string
}

// Status returns the limit, the most batches in flight so far, and why a
// --rate is not reached.
func (c *controller) Status() controllerStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := controllerStatus{Limit: c.limit, Peak: c.peak, Latency: c.latency}
	if c.behind < 3 || c.now().Sub(c.start) < time.Second {
		return st
	}
	lat := c.latency.Round(time.Millisecond)
	switch {
	case c.congested != "" && c.quiet < 10:
		st.Behind = fmt.Sprintf("SQS answers with %s; %s in flight", c.congested, plural.Of(c.limit, "batch", "batches"))
	case c.fixed:
		st.Behind = fmt.Sprintf("--workers %d fixes the batches in flight at %s per call; drop --workers to let mfdlq pick", c.limit, lat)
	case c.limit >= c.max:
		st.Behind = fmt.Sprintf("%d batches in flight, the --max-workers cap, at %s per call", c.limit, lat)
	default:
		st.Behind = fmt.Sprintf("more batches in flight stopped helping at %d (%s per call): the client or the queue is saturated", c.limit, lat)
	}
	return st
}

// congestion tells whether err is SQS saying slow down: "throttled" for a
// throttling error or a 429, "fault" for a 5xx, "" for anything else (a
// broken connection says nothing about load).
func congestion(err error) string {
	if err == nil {
		return ""
	}
	var api smithy.APIError
	serverMarked := errors.As(err, &api) && api.ErrorFault() == smithy.FaultServer
	var re *smithyhttp.ResponseError
	status := 0
	if errors.As(err, &re) && re.Response != nil {
		status = re.Response.StatusCode
	}
	switch {
	case status >= 500:
		return "fault"
	case awserr.ThrottledCode(awserr.Code(err)) && !serverMarked, status == 429:
		return "throttled"
	case awserr.ServerFault(err) || awserr.ThrottledCode(awserr.Code(err)):
		return "fault"
	}
	return ""
}

func congestionText(r round) string {
	switch {
	case r.throttled > 0 && r.fault > 0:
		return "throttling and server errors"
	case r.throttled > 0:
		return "throttling"
	}
	return "server errors"
}
