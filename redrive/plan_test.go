package redrive

import (
	"errors"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/selection"
)

func TestRequestWorkers(t *testing.T) {
	for _, tt := range []struct {
		rate    float64
		workers int
		want    int
	}{{10, 0, 64}, {0, 0, 64}, {10, 5, 5}, {0, 32, 32}} {
		r := Request{Rate: tt.rate, Workers: tt.workers, MaxWorkers: 64}
		if got := r.workers(); got != tt.want {
			t.Errorf("rate %g workers %d: %d, want %d", tt.rate, tt.workers, got, tt.want)
		}
	}
}

// The bound, the canary and its wait are decided in one place for every
// source and destination.
func TestSizeCanary(t *testing.T) {
	for _, tt := range []struct {
		name               string
		req                Request
		backlog            int
		toSource           bool
		wantBound, wantCan int
		wantWait           time.Duration
	}{
		{"default to source", Request{Canary: -1}, 340, true, 340, 10, time.Minute},
		{"default elsewhere", Request{Canary: -1}, 340, false, 340, 0, time.Minute},
		{"max bounds", Request{Canary: -1, Selection: selection.Selection{Max: 5}}, 340, true, 5, 5, time.Minute},
		{"asked", Request{Canary: 3, CanaryWait: 7 * time.Second}, 340, false, 340, 3, 7 * time.Second},
		{"none left", Request{Canary: 4}, 0, true, 0, 0, time.Minute},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &Plan{Req: tt.req, Backlog: tt.backlog}
			p.sizeCanary(tt.toSource, time.Minute)
			if p.Bound != tt.wantBound || p.Canary != tt.wantCan || p.CanaryWait != tt.wantWait {
				t.Fatalf("bound %d canary %d wait %s; want %d %d %s", p.Bound, p.Canary, p.CanaryWait, tt.wantBound, tt.wantCan, tt.wantWait)
			}
		})
	}
}

func TestOutcomeOf(t *testing.T) {
	boom := errors.New("boom")
	for _, tt := range []struct {
		s           Summary
		interrupted bool
		want        Outcome
	}{
		{Summary{Moved: 3}, false, OutcomeMoved},
		{Summary{Moved: 3}, true, OutcomeInterrupted},
		{Summary{CanaryBack: 2, Stats: mover.Stats{Returned: 2}}, false, OutcomeCanaryBack},
		{Summary{CanaryBack: 2, Err: boom}, false, OutcomeError},
		{Summary{Err: boom}, true, OutcomeError},
		{Summary{LeaseLost: &LeaseLostError{}}, true, OutcomeLeaseLost},
		{Summary{Stats: mover.Stats{Halted: "circuit breaker: 10 came back"}}, false, OutcomeBreaker},
		{Summary{Stats: mover.Stats{Halted: mover.HaltFilter + "10 messages of the first batch"}}, false, OutcomeFilterHalt},
		{Summary{Stats: mover.Stats{Halted: "message move task failed: x"}}, false, OutcomeHalted},
		{Summary{Moved: 1, Stats: mover.Stats{Failed: 2, FilterErrors: 1}}, false, OutcomeFailed},
		{Summary{Moved: 1, Stats: mover.Stats{FilterErrors: 1}}, false, OutcomeFilterErrors},
		{Summary{Stats: mover.Stats{Returned: 4}}, false, OutcomeAllReturned},
		{Summary{Moved: 1, Stats: mover.Stats{Returned: 4}}, false, OutcomeMoved},
	} {
		if got := outcomeOf(&tt.s, tt.interrupted); got != tt.want {
			t.Errorf("%+v interrupted %v: %s, want %s", tt.s, tt.interrupted, got, tt.want)
		}
	}
}
